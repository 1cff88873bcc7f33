/**
 * Fixtures for the simulator tests: real temporary git repositories with a bare origin, and runners
 * for the built `sim` and fake forge `gh` CLIs. The tests run what dist/ holds: build it first with
 * `npx tsc -p tsconfig.build.json` (the tests build nothing themselves).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SIM = join(ROOT, 'bin', 'sim.js');
export const FORGE_BIN = join(ROOT, 'bin', 'forge');

/** Throws a clear error when the CLIs under test have not been built. */
export function requireBuilt(): void {
  for (const file of ['dist/simulators/sim/main.js', 'dist/simulators/forge/main.js']) {
    if (!existsSync(join(ROOT, file))) {
      throw new Error(`${file} is missing: run \`npx tsc -p tsconfig.build.json\` before these tests`);
    }
  }
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A temp directory with a bare `origin.git`, a clone `work` on branch `feature`, and a forge dir. */
export interface Sandbox {
  readonly dir: string;
  readonly work: string;
  readonly origin: string;
  readonly forgeDir: string;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'harmflow-sim-'));
  const origin = join(dir, 'origin.git');
  const work = join(dir, 'work');
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  git(dir, 'init', '--quiet', '--initial-branch=main', work);
  git(work, 'config', 'user.name', 'Sim Test');
  git(work, 'config', 'user.email', 'sim@example.test');
  git(work, 'config', 'commit.gpgsign', 'false');
  await writeFile(join(work, 'README.md'), '# demo\n');
  git(work, 'add', '-A');
  git(work, 'commit', '--quiet', '-m', 'Initial commit');
  git(work, 'remote', 'add', 'origin', origin);
  git(work, 'push', '--quiet', 'origin', 'main');
  git(work, 'checkout', '--quiet', '-b', 'feature');
  return { dir, work, origin, forgeDir: join(dir, 'forge'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The command lines the adapters build (brief "Shared decisions"), without the binary name. */
export function claudeArgv(prompt: string, options: { resume?: string; model?: string } = {}): string[] {
  return [
    '-p',
    prompt,
    ...(options.resume !== undefined ? ['--resume', options.resume] : []),
    '--output-format',
    'stream-json',
    '--verbose',
    '--dangerously-skip-permissions',
    ...(options.model !== undefined ? ['--model', options.model] : []),
  ];
}

export function codexArgv(prompt: string, options: { resume?: string; model?: string } = {}): string[] {
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    ...(options.model !== undefined ? ['-m', options.model] : []),
    ...(options.resume !== undefined ? ['resume', options.resume] : []),
    prompt,
  ];
}

export type SimHarness = 'claude-code' | 'codex';

export function argvFor(harness: SimHarness, prompt: string, options: { resume?: string; model?: string } = {}) {
  return harness === 'claude-code' ? claudeArgv(prompt, options) : codexArgv(prompt, options);
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout split into lines (no trailing empty line). */
  readonly lines: string[];
}

/** 20 s: a run takes 0.3–2 s; the margin is for a machine loaded by other test suites. */
const RUN_TIMEOUT_MS = 20_000;

/** Runs a command to its end (killing its group after `timeoutMs`) and collects its output. */
export function runCli(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timeoutMs = options.timeoutMs ?? RUN_TIMEOUT_MS;
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(
        new Error(
          `${args.join(' ')} did not end within ${timeoutMs} ms; stdout so far:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = stdout.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      resolve({ code, signal, stdout, stderr, lines });
    });
  });
}

/** The environment that puts the fake forge first on PATH and gives it a store. */
export function forgeEnv(forgeDir: string): Record<string, string> {
  return { PATH: `${FORGE_BIN}:${process.env.PATH ?? ''}`, HARMFLOW_FORGE_DIR: forgeDir };
}

/** Writes `scenario` (an object, written as JSON) to a file in `dir` and runs `sim` with it. */
export async function runSim(options: {
  harness: SimHarness;
  scenario: unknown;
  dir: string;
  cwd: string;
  argv: readonly string[];
  env?: Record<string, string>;
}): Promise<CliRun> {
  const file = join(options.dir, `scenario-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(options.scenario));
  return runCli(process.execPath, [SIM, ...options.argv], {
    cwd: options.cwd,
    env: { HARMFLOW_SIM_AS: options.harness, HARMFLOW_SIM_SCENARIO: file, ...options.env },
  });
}

/** Parses every stdout line as JSON; throws naming the first line that is not JSON. */
export function jsonLines(run: CliRun): Record<string, unknown>[] {
  return run.lines.map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`stdout line ${index + 1} is not JSON: ${line}`);
    }
  });
}
