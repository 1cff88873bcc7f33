/**
 * The core under `spawnProcess` and `runCommand`: starts one child as the leader of its own process
 * group (argv, no shell, stdin ignored, stdout and stderr piped) and watches it to the end. Internal
 * to src/proc; everything else uses those two.
 *
 * Lifetime: `exited` resolves once the leader has exited AND both pipes are closed and their bytes
 * handed to the sinks; the group is then killed, so nothing the child started is left running.
 * It never rejects. Sinks are called on the event loop, stdout and stderr each in order.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { signalGroup, waitGroupGone } from './group.js';

/**
 * How long the pipes are read after the leader exits before the rest of its group is killed to
 * close them: 200 ms. The CLIs we run write their last line before they exit, and a pipe holds at
 * most 64 KiB, which is read in well under a millisecond; output after that comes from processes
 * the child left behind (`cmd &`) that still hold the pipe, and waiting for them would stall a
 * harness switch for as long as they live. The same period is granted once more after the kill
 * before the pipes are closed from our side (a process that left the group may still hold them).
 */
const DRAIN_MS = 200;

/**
 * How long `exited` waits for the killed group to be gone: 1 s. SIGKILL takes effect within
 * milliseconds; only a process stuck in uninterruptible sleep (a hung disk or NFS mount) outlives
 * it, and the execution is not held hostage to one.
 */
const GONE_WAIT_MS = 1000;

export type StreamName = 'stdout' | 'stderr';

/**
 * How a child ended. `exitCode` and `signal` are Node's: exactly one is set when the process ran
 * (the exit code, or the signal that ended it), both are null when it never started. `error` says
 * what went wrong around the process: it could not be started (`spawn claude ENOENT`), its raw log
 * could not be written, or the line consumer threw; `exitCode`/`signal` still report what the
 * process itself did.
 */
export interface ProcessExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly error?: string;
}

export interface ChildSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The complete environment of the child; never merged with process.env. */
  readonly env: Readonly<Record<string, string>>;
  /** Written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  readonly stdin?: string;
}

/** Where a child's output goes. Must not throw. */
export interface ChildSinks {
  /** Receives each chunk as it arrives, in order per stream. */
  onData(stream: StreamName, chunk: Buffer): void;
  /** Called once per stream after its last chunk. */
  onEnd(stream: StreamName): void;
}

export interface Child {
  /** The leader's pid, which is also the group id; undefined when the process never started. */
  readonly pid: number | undefined;
  readonly exited: Promise<ProcessExit>;
  /** Signals the whole group; a no-op when never started or once `exited` has resolved. */
  signal(signal: NodeJS.Signals): void;
}

/** Starts `spec` as a group leader. Never throws: a start failure resolves `exited` with `error`. */
export function startChild(spec: ChildSpec, sinks: ChildSinks): Child {
  let child: ChildProcessByStdio<Writable | null, Readable, Readable>;
  try {
    child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...spec.env },
      stdio: [spec.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      // A new process group (and session) led by the child, so one signal to -pid reaches all it
      // starts. The child stays referenced: its exit must keep reaching us.
      detached: true,
      // The stdio array picks stdout and stderr as pipes; stdin is a pipe only with input.
    }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
  } catch (error) {
    // Synchronous failures are invalid arguments (e.g. a NUL byte in argv).
    return { pid: undefined, exited: Promise.resolve(startFailure(error, spec.cwd)), signal: () => {} };
  }
  if (child.stdin) {
    // A child that exits without reading its input breaks the pipe: that is its business, not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(spec.stdin);
  }
  const pid = child.pid;
  let settled = false;
  const exited = watch(child, spec.cwd, sinks).then((exit) => {
    settled = true;
    return exit;
  });
  return {
    pid,
    exited,
    signal(signal) {
      if (pid !== undefined && !settled) signalGroup(pid, signal);
    },
  };
}

async function watch(
  child: ChildProcessByStdio<Writable | null, Readable, Readable>,
  cwd: string,
  sinks: ChildSinks,
): Promise<ProcessExit> {
  const { stdout, stderr } = child;
  // 'error' before a pid means the start failed; Node emits it once, but a listener must stay so a
  // later one (there is none we trigger) could never crash the process.
  const startError = new Promise<unknown>((resolve) => child.on('error', resolve));
  const leaderExit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const streamsClosed = Promise.all([read(stdout, 'stdout', sinks), read(stderr, 'stderr', sinks)]);
  const pid = child.pid;
  if (pid === undefined) {
    const error = await startError;
    await streamsClosed; // Node closes the pipes of a child that never started at once.
    return startFailure(error, cwd);
  }
  const exit = await leaderExit;
  let closeTimer: NodeJS.Timeout | undefined;
  const killTimer = setTimeout(() => {
    signalGroup(pid, 'SIGKILL');
    closeTimer = setTimeout(() => {
      stdout.destroy();
      stderr.destroy();
    }, DRAIN_MS);
  }, DRAIN_MS);
  await streamsClosed;
  clearTimeout(killTimer);
  clearTimeout(closeTimer);
  signalGroup(pid, 'SIGKILL');
  await waitGroupGone(pid, GONE_WAIT_MS);
  return { exitCode: exit.code, signal: exit.signal };
}

/** Feeds one pipe to the sinks; resolves when it is closed (ended, failed or destroyed). */
function read(stream: Readable, name: StreamName, sinks: ChildSinks): Promise<void> {
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => sinks.onData(name, chunk));
    stream.on('error', () => {}); // A read error ends the pipe; 'close' follows and ends the read.
    stream.once('close', () => {
      sinks.onEnd(name);
      resolve();
    });
  });
}

/**
 * Describes a start failure. A missing cwd fails as `spawn <command> ENOENT`, like a missing
 * executable; it is named instead, so a deleted worktree is not taken for an uninstalled CLI.
 */
function startFailure(error: unknown, cwd: string): ProcessExit {
  const cwdMissing = (error as NodeJS.ErrnoException).code === 'ENOENT' && !isDirectory(cwd);
  const message = cwdMissing
    ? `working directory not found: ${cwd}`
    : error instanceof Error
      ? error.message
      : String(error);
  return { exitCode: null, signal: null, error: message };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
