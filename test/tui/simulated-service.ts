/**
 * A real `harmflow serve` (a child process, test/e2e/daemon.ts) on a bench's repository with the
 * simulator's environment (git identity, the fake forge), for the terminal UI's end-to-end tests:
 * submit tasks, read an execution's state, run workflows in the service's state directory (the
 * built `harmflow workflow run`, so its runs are the service's to list), and the story they share —
 * claude-code writes and commits NOTES.md, then runs out of quota. `close()` stops the service and
 * removes the bench.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { spawnHarmflow } from '../cli/spawn-harmflow.js';
import { type Daemon, startDaemon } from '../e2e/daemon.js';
import { type Bench, FORGE_BIN, GIT_IDENTITY, makeBench } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
/** Three letters and a review of each: a run of it ends `waiting` for a person within a second. */
export const REVIEW_WORKFLOW = fileURLToPath(new URL('./review-workflow.mjs', import.meta.url));
/** One item that waits for a file (test/workflows/held-workflow.mjs): a run of it stays `running`. */
const HELD_WORKFLOW = fileURLToPath(new URL('../workflows/held-workflow.mjs', import.meta.url));

export interface SimulatedService {
  readonly bench: Bench;
  readonly daemon: Daemon;
  /** Submits a task on the bench's repository (`main`); resolves with the execution's id. */
  submit(task: Record<string, unknown>): Promise<string>;
  stateOf(id: string): Promise<string>;
  /** Runs `harmflow workflow run FILE` to its stop in the service's state directory; resolves with the run's id. */
  runWorkflow(file: string): Promise<string>;
  /**
   * Starts a run of the held workflow and kills (SIGKILL) the process driving it mid-item: the
   * service shows the run `interrupted`. Resolves with its id.
   */
  interruptedRun(): Promise<string>;
  close(): Promise<void>;
}

export async function startSimulatedService(args: readonly string[] = []): Promise<SimulatedService> {
  const bench = makeBench();
  const daemon = await startDaemon(bench.home.root, ['--max-running', '4', '--disk-floor-gib', '0', ...args], {
    ...process.env,
    ...GIT_IDENTITY,
    HARMFLOW_FORGE_DIR: bench.forgeDir,
    PATH: `${FORGE_BIN}${delimiter}${process.env.PATH ?? ''}`,
  });
  return {
    bench,
    daemon,
    async submit(task) {
      const created = await daemon.api('POST', '/api/executions', {
        task: { repo: bench.repo, baseRef: 'main', ...task },
      });
      expect(created.status).toBe(201);
      return (created.body as { execution: { id: string } }).execution.id;
    },
    async stateOf(id) {
      return ((await daemon.api('GET', `/api/executions/${id}`)).body as { execution: { state: string } }).execution
        .state;
    },
    async runWorkflow(file) {
      const ran = await spawnHarmflow(['workflow', 'run', file, '--home', bench.home.root, '--json', '--quiet'], {
        env: process.env,
      });
      expect(ran.stdout, ran.stderr).toMatch(/^\{/);
      return (JSON.parse(ran.stdout) as { id: string }).id;
    },
    async interruptedRun() {
      const release = join(bench.dir, 'release-held');
      const child = spawn(
        process.execPath,
        [BIN, 'workflow', 'run', HELD_WORKFLOW, '--param', `release=${release}`, '--home', bench.home.root],
        { stdio: 'ignore' },
      );
      const exited = once(child, 'exit');
      const deadline = Date.now() + 30_000;
      while (!existsSync(`${release}.started`)) {
        if (Date.now() > deadline) throw new Error('the held workflow did not start its item within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      child.kill('SIGKILL');
      await exited;
      const listed = await daemon.api('GET', '/api/workflows/runs');
      const runs = (listed.body as { runs: { id: string; workflow: string; state: string }[] }).runs;
      const held = runs.find((run) => run.workflow === 'held');
      expect(held?.state).toBe('interrupted');
      return held?.id ?? '';
    },
    async close() {
      await daemon.kill('SIGTERM');
      await bench.cleanup();
    },
  };
}

/** The scenario of a claude-code that adds and commits NOTES.md, then runs out of its subscription's quota. */
export function notesThenOutOfQuota(bench: Bench): string {
  return bench.scenario('first', {
    pace: '150ms',
    steps: [
      { say: 'I will add the notes file.' },
      { write: { path: 'NOTES.md', content: 'Notes\n' } },
      { commit: 'Add NOTES.md' },
      { end: { quota: 'subscription' } },
    ],
  });
}

/** What the execution of `pullRequestNotSeen`'s scenario records: its plan entry, and the sentence it is unconfirmed with. */
export const NOT_SEEN = {
  item: 'Open a pull request',
  unconfirmed: 'HarmFlow saw no pull request opened by this attempt',
  commitsFailed: 'every commit failed: the 1 commit it tried left nothing on the branch',
} as const;

/**
 * The scenario of a claude-code that plans "Open a pull request", tries a commit that fails (there
 * is nothing to commit: `git commit` exits 1), marks the entry completed without opening any pull
 * request, and ends as if all went well: the item is unconfirmed, and the execution ends with every
 * commit failed.
 */
export function pullRequestNotSeen(bench: Bench): string {
  return bench.scenario('pull-request-not-seen', {
    steps: [
      { plan: [{ text: NOT_SEEN.item, status: 'in_progress' }] },
      { say: 'Committing, then opening the pull request.' },
      { commit: 'Open the pull request' },
      { plan: [{ text: NOT_SEEN.item, status: 'completed' }] },
      { end: { complete: { message: 'Opened the pull request.' } } },
    ],
  });
}
