/**
 * `spawnProcess` starts a long-running child (a harness CLI turn) and hands its output over as
 * lines and as raw bytes. The returned `RunningProcess` is owned by the caller, who stops it or
 * waits for `exited`; either way the child's whole process group is gone once `exited` resolves.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../core/home.js';
import { type ProcessExit, type StreamName, startChild } from './child.js';
import { LineSplitter } from './lines.js';
import { ByteTail } from './tail.js';

export type { ProcessExit, StreamName } from './child.js';

/**
 * How much of stderr `stderrTail()` keeps: 8 KiB. Classifiers look for quota, auth and crash
 * messages, which CLIs print last; 8 KiB holds about a hundred lines of them, including a stack trace.
 */
export const STDERR_TAIL_BYTES = 8 * 1024;

export interface ProcessSpec {
  readonly command: string;
  /** argv after the command; no shell is involved. */
  readonly args: readonly string[];
  readonly cwd: string;
  /** The complete environment of the child; never merged with process.env. */
  readonly env: Readonly<Record<string, string>>;
  /** A file that receives stdout's raw bytes, appended as they arrive (the attempt's raw log). */
  readonly stdoutFile?: string;
  /** A file that receives stderr's raw bytes, appended as they arrive. */
  readonly stderrFile?: string;
  /**
   * Receives every line (without its `\n` or `\r\n`), in order per stream; a last line without a
   * newline arrives when the stream ends. Should not throw: if it does, the first error is reported
   * in `ProcessExit.error` and later lines are still delivered.
   */
  readonly onLine?: (stream: StreamName, line: string) => void;
}

/** The signals an interrupt may send before the kill. */
export type InterruptSignal = 'SIGINT' | 'SIGTERM';

export interface RunningProcess {
  /** The leader's pid, also its process group id; undefined when the process never started. */
  readonly pid: number | undefined;
  /**
   * Resolves once the leader has exited, both streams are read and delivered (lines and raw logs),
   * and no process of its group is left. Never rejects; a process that could not be started resolves
   * it with `{exitCode: null, signal: null, error}`.
   */
  readonly exited: Promise<ProcessExit>;
  /**
   * Interrupts: `signal` (default SIGTERM; SIGINT is Ctrl-C, what a cancel sends) to the whole group,
   * then SIGKILL to the group if it has not finished within `budgetMs`. Resolves with `exited`.
   * Idempotent: later calls return the first call's promise.
   */
  stop(budgetMs: number, signal?: InterruptSignal): Promise<ProcessExit>;
  /** Sends SIGKILL to the whole group now; a no-op once `exited` has resolved. */
  kill(): void;
  /** Returns the last 8 KiB of stderr as text (so far, or in full once `exited` resolved). */
  stderrTail(): string;
}

/**
 * Starts `spec` as the leader of a new process group, stdin ignored. Never throws: a missing
 * executable or cwd, or a raw log that cannot be opened, resolves `exited` with `error` (for a log,
 * without starting the process).
 */
export function spawnProcess(spec: ProcessSpec): RunningProcess {
  const logs: Partial<Record<StreamName, RawLog>> = {};
  try {
    if (spec.stdoutFile !== undefined) logs.stdout = new RawLog(spec.stdoutFile);
    if (spec.stderrFile !== undefined) logs.stderr = new RawLog(spec.stderrFile);
  } catch (error) {
    logs.stdout?.close();
    return notStarted(`cannot open raw log: ${messageOf(error)}`);
  }
  let consumerError: string | undefined;
  const deliver = (stream: StreamName) => (line: string) => {
    if (spec.onLine === undefined) return;
    try {
      spec.onLine(stream, line);
    } catch (error) {
      consumerError ??= `onLine failed: ${messageOf(error)}`;
    }
  };
  const splitters = { stdout: new LineSplitter(deliver('stdout')), stderr: new LineSplitter(deliver('stderr')) };
  const tail = new ByteTail(STDERR_TAIL_BYTES);
  const child = startChild(spec, {
    onData(stream, chunk) {
      logs[stream]?.write(chunk);
      if (stream === 'stderr') tail.push(chunk);
      splitters[stream].push(chunk);
    },
    onEnd(stream) {
      logs[stream]?.close();
      splitters[stream].end();
    },
  });
  const exited = child.exited.then((exit): ProcessExit => {
    const error = exit.error ?? logs.stdout?.error ?? logs.stderr?.error ?? consumerError;
    return { exitCode: exit.exitCode, signal: exit.signal, ...(error !== undefined && { error }) };
  });
  let stopping: Promise<ProcessExit> | undefined;
  return {
    pid: child.pid,
    exited,
    stop(budgetMs, signal = 'SIGTERM') {
      stopping ??= (async () => {
        child.signal(signal);
        const timer = setTimeout(() => child.signal('SIGKILL'), budgetMs);
        try {
          return await exited;
        } finally {
          clearTimeout(timer);
        }
      })();
      return stopping;
    },
    kill: () => child.signal('SIGKILL'),
    stderrTail: () => tail.text(),
  };
}

/** One raw log file, appended to synchronously so its bytes are on disk in arrival order. */
class RawLog {
  private fd: number | undefined;
  /** The first write failure; writing stops there. */
  error: string | undefined;

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'a', PRIVATE_FILE_MODE);
  }

  write(chunk: Buffer): void {
    if (this.fd === undefined) return;
    try {
      let written = 0;
      while (written < chunk.length) written += writeSync(this.fd, chunk, written);
    } catch (error) {
      this.error = `cannot write raw log ${this.path}: ${messageOf(error)}`;
      this.close();
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch (error) {
      this.error ??= `cannot close raw log ${this.path}: ${messageOf(error)}`;
    }
  }
}

function notStarted(error: string): RunningProcess {
  const exited = Promise.resolve<ProcessExit>({ exitCode: null, signal: null, error });
  return { pid: undefined, exited, stop: () => exited, kill: () => {}, stderrTail: () => '' };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
