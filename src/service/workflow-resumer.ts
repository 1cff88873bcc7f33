/**
 * Resuming a workflow run for the Workbench: a person who reviewed a run in the browser resumes it
 * there, without a terminal. The service starts `harmflow workflow resume RUN --home HOME` as a
 * process of its own — detached, in its own process group, so it carries on when the service stops
 * or restarts, and drives the run exactly as the command line would (it takes the run as its owner,
 * plans, refuses a run another live process drives) — with its output appended to
 * `workflow-logs/<run>.log` in the state directory (0600). The resumer waits until the process has
 * taken the run (the run names it as owner) or ended: one that ended having driven the run (exit 0,
 * 10 or 13) is fine, one that ended otherwise refused (exit 7: another process drives it) or could not
 * start (its workflow file is gone), and its log's last lines say why.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ConflictError, EXIT } from '../core/errors.js';
import { HARMFLOW_BIN } from '../core/harmflow-bin.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/home.js';
import type { ResumeStore } from '../store/resume-store.js';

/** How long the process has to take the run: loading a workflow file and planning take seconds. */
const TAKE_MS = 30_000;
const POLL_MS = 100;
/** The exits of a resume that drove the run: it stopped succeeded, failed or crashed, or waiting. */
const DROVE: ReadonlySet<number> = new Set([EXIT.ok, EXIT.executionFailed, EXIT.workflowWaiting]);
/** The log's tail quoted in a refusal. */
const TAIL_CHARS = 600;

export interface ResumeStarted {
  readonly run: string;
  readonly pid: number;
  /** The file its output goes to. */
  readonly log: string;
}

export interface WorkflowResumer {
  /** Starts a resume of `run`; resolves once its process drives the run, rejects (409) when it ended first. */
  resume(run: string): Promise<ResumeStarted>;
}

/** A resumer for the runs of the state directory `home` (its SQLite resume store is `store`). */
export function workflowResumer(home: string, store: ResumeStore): WorkflowResumer {
  const logs = join(home, 'workflow-logs');
  return {
    async resume(run) {
      mkdirSync(logs, { recursive: true, mode: PRIVATE_DIR_MODE });
      const log = join(logs, `${run}.log`);
      const out = openSync(log, 'a', PRIVATE_FILE_MODE);
      let exited: number | null | undefined;
      let pid: number | undefined;
      try {
        const child = spawn(process.execPath, [HARMFLOW_BIN, 'workflow', 'resume', run, '--home', home], {
          detached: true,
          stdio: ['ignore', out, out],
          env: process.env,
        });
        child.once('exit', (code) => {
          exited = code;
        });
        await new Promise<void>((resolve, reject) => {
          child.once('spawn', resolve);
          child.once('error', reject);
        });
        child.unref();
        pid = child.pid as number;
      } finally {
        closeSync(out);
      }
      const until = Date.now() + TAKE_MS;
      while (Date.now() < until) {
        const record = await store.getRun(run);
        if (record?.owner?.pid === pid) return { run, pid, log };
        if (exited !== undefined) {
          // It drove the run to a stop before a poll saw it as the owner.
          if (exited !== null && DROVE.has(exited)) return { run, pid, log };
          throw new ConflictError(`the resume of run ${run} ended (exit ${exited}) without taking it: ${tail(log)}`);
        }
        await delay(POLL_MS);
      }
      throw new ConflictError(`the resume of run ${run} (pid ${pid}) did not take it within 30 s: see ${log}`);
    },
  };
}

/** The log's last lines, on one line. */
function tail(log: string): string {
  const text = readFileSync(log, 'utf8').trim();
  return text.slice(-TAIL_CHARS).replace(/\s*\n\s*/g, ' | ');
}
