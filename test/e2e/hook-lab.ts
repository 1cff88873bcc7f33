/**
 * The lab for the end-to-end tests of each harness's hooks against its real CLI: a tiny hook program
 * standing in for the gate runner (it logs each call and answers what the harness's dialect
 * answers), the attempt's private home laid out as the engine lays it, the CLI run to its end, and a
 * loopback relay that keeps every request body on its way to the model-API simulator (what the model
 * was sent after a deny). `openLab` starts the simulator and the relay; `runHooked` runs one turn of
 * a harness's CLI through them with its hooks installed.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { HarnessName } from '../../src/core/outcome.js';
import type { GateEvent } from '../../src/gates/hook-event.js';
import { ALLOW, deny } from '../../src/gates/verdict.js';
import type { CommandInput, CommandSpec } from '../../src/harnesses/adapter.js';
import type { HarnessHooks, HookDialect } from '../../src/harnesses/hooks.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import type { ScriptsSpec } from '../../src/simulators/model-api/script.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { REAL_PATH } from './real-harnesses.js';

export const DENIED_COMMAND = 'echo gate-me > denied.txt && cat denied.txt';
export const MESSAGE = 'HarmFlow gate: writing denied.txt is not allowed';

/** One call of the hook program, as it logged it. */
export interface HookCall {
  readonly event: GateEvent;
  readonly stdin: string;
  /** `HOOK_PROBE` from the CLI's environment; `HARMFLOW_GATE_DIR` from the install's `env`. */
  readonly probe: string | null;
  readonly gateDir: string | null;
}

/**
 * The hook program's source: it appends each call to `log` and answers `dialect`'s deny for a
 * PreToolUse whose input names denied.txt, its allow otherwise. Run as `node <file> <event>`.
 */
export function hookProgram(log: string, dialect: HookDialect, events: readonly GateEvent[]): string {
  const denyAnswer = dialect.answer('PreToolUse', deny(MESSAGE));
  const allowAnswers = Object.fromEntries(events.map((event) => [event, dialect.answer(event, ALLOW)]));
  return `import { appendFileSync } from 'node:fs';
const event = process.argv[2];
let stdin = '';
process.stdin.on('data', (chunk) => (stdin += chunk));
process.stdin.on('end', () => {
  const call = { event, stdin, probe: process.env.HOOK_PROBE ?? null, gateDir: process.env.HARMFLOW_GATE_DIR ?? null };
  appendFileSync(${JSON.stringify(log)}, JSON.stringify(call) + '\\n');
  const answer = event === 'PreToolUse' && stdin.includes('denied.txt') ? ${JSON.stringify(denyAnswer)} : ${JSON.stringify(allowAnswers)}[event];
  process.stdout.write(answer.stdout);
  process.exitCode = answer.exitCode;
});
`;
}

/** The calls the hook program logged, in order. */
export function readHookLog(log: string): HookCall[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HookCall);
}

export const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** Creates the spec's folders and writes its files under `homeDir`, as the engine does. */
export function prepareHome(spec: CommandSpec, homeDir: string): void {
  for (const sub of spec.dirs) mkdirSync(join(homeDir, sub), { recursive: true });
  for (const [file, content] of Object.entries(spec.files)) {
    mkdirSync(dirname(join(homeDir, file)), { recursive: true });
    writeFileSync(join(homeDir, file), content);
  }
}

/** Runs the CLI to its end (killed after 90 s); its exit code and stdout. */
export function runCli(spec: CommandSpec, cwd: string): Promise<{ exitCode: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.command, spec.args, { cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout });
    });
  });
}

/** A request the relay passed on. */
export interface Relayed {
  readonly path: string;
  readonly body: string;
}

/** A loopback relay: its URL, every request it forwarded so far, its server. */
export interface Relay {
  readonly url: string;
  readonly bodies: Relayed[];
  readonly server: Server;
}

/** A loopback relay to `target` that keeps the path and body of every request it forwards. */
export async function startRelay(target: string): Promise<Relay> {
  const bodies: Relayed[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push({ path: req.url ?? '', body: body.toString() });
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, bodies, server };
}

/** The model-API simulator, the relay in front of it, and a temp folder for the attempts. */
export interface Lab {
  readonly api: ModelApi;
  readonly relay: Relay;
  readonly root: string;
  /** Stops the relay and the simulator and removes the folder. */
  close(): Promise<void>;
}

/** Starts the simulator following `scripts` and its relay; the folder is named after `name`. */
export async function openLab(scripts: ScriptsSpec, name: string): Promise<Lab> {
  const api = await startModelApi({ scripts });
  const relay = await startRelay(api.url);
  const root = mkdtempSync(join(tmpdir(), `harmflow-${name}-`));
  return {
    api,
    relay,
    root,
    async close() {
      await new Promise((resolve) => relay.server.close(resolve));
      await api.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The harness under test: how its CLI's command is built, its hooks and their dialect, the model it is given. */
export interface HookedHarness {
  readonly name: HarnessName;
  readonly command: (input: CommandInput) => CommandSpec;
  readonly hooks: HarnessHooks;
  readonly dialect: HookDialect;
  readonly model?: string;
}

/** One turn of the CLI with the hooks installed. */
export interface HookedRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  /** The CLI's cwd, `<root>/<script>/worktree`. */
  readonly worktree: string;
  /** The command as the hooks installed it. */
  readonly spec: CommandSpec;
  /** The hook program's calls, in order. */
  readonly hooks: HookCall[];
}

/**
 * Runs one turn of `harness`'s CLI following `script`, through the lab's relay, with its hooks
 * installed to run the hook program (answering in `harness.dialect` for `harness.hooks.events`).
 * Under `<root>/<script>`: the worktree, the private home, the hook program and its log. The CLI's
 * environment carries HOOK_PROBE=probe-from-<name>-env; the install's `env` is `gateEnv`.
 */
export async function runHooked(
  lab: Lab,
  harness: HookedHarness,
  script: string,
  gateEnv: Readonly<Record<string, string>> = {},
): Promise<HookedRun> {
  const dir = join(lab.root, script);
  const worktree = join(dir, 'worktree');
  const homeDir = join(dir, 'home');
  const hook = join(dir, 'hook.mjs');
  const log = join(dir, 'hooks.jsonl');
  mkdirSync(worktree, { recursive: true });
  writeFileSync(hook, hookProgram(log, harness.dialect, harness.hooks.events));
  writeFileSync(log, '');

  const connection = connectHarness(harness.name, { url: lab.relay.url, script });
  const spec = harness.command({
    prompt: 'Do the task.',
    cwd: worktree,
    homeDir,
    ...(harness.model === undefined ? {} : { model: harness.model }),
    extraArgs: connection.args,
    env: { ...connection.env, HOOK_PROBE: `probe-from-${harness.name}-env` },
    path: REAL_PATH,
  });
  const installed = harness.hooks.install(spec, {
    shellCommand: (event) => [process.execPath, hook, event].map(quote).join(' '),
    argv: (event) => [process.execPath, hook, event],
    homeDir,
    env: gateEnv,
    gatesSha256: 'hook-lab'.padEnd(64, '0'),
  });
  prepareHome(installed, homeDir);

  const { exitCode, stdout } = await runCli(installed, worktree);
  return { exitCode, stdout, worktree, spec: installed, hooks: readHookLog(log) };
}
