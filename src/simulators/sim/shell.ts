/**
 * Running things for real on behalf of the simulated agent: shell commands (as a harness's shell tool
 * would) and short git/gh queries (as an agent checking its workspace would). Everything runs in the
 * worktree, with the simulator's own environment.
 */
import { spawn, spawnSync } from 'node:child_process';

/** What a shell command did. `output` interleaves stdout and stderr in arrival order. */
export interface ShellRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly output: string;
}

/**
 * Runs `command` with `bash -c` in `cwd` and resolves when it exits; never rejects (a command that
 * cannot start gives exit code 127 and the reason as stderr). Not a login shell (`-l`), although
 * Codex prints `/bin/bash -lc`: a login shell rereads /etc/profile, which on Debian resets PATH and
 * would hide the tools the caller put first on PATH (the fake forge `gh`, for one).
 */
export function runShell(command: string, cwd: string): Promise<ShellRun> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const both: Buffer[] = [];
    const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      both.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      both.push(chunk);
    });
    child.on('error', (error) => {
      resolve({ exitCode: 127, stdout: '', stderr: error.message, output: error.message });
    });
    child.on('close', (code, signal) => {
      resolve({
        exitCode: code ?? (signal !== null ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        output: Buffer.concat(both).toString('utf8'),
      });
    });
  });
}

/** 10 s: a workspace check (git, the forge) answers in tens of ms; one that hangs counts as failed. */
const QUERY_TIMEOUT_MS = 10_000;

/** Runs a short query (`git …`, `gh …`) in `cwd`; returns its trimmed stdout, or undefined when it fails. */
export function query(command: string, args: readonly string[], cwd: string): string | undefined {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: QUERY_TIMEOUT_MS,
  });
  return result.status === 0 ? result.stdout.trim() : undefined;
}
