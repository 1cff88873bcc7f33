/**
 * A real `harmflow serve` (a child process, test/e2e/daemon.ts) on a bench's repository with the
 * simulator's environment (git identity, the fake forge), for the terminal UI's end-to-end tests:
 * submit tasks, read an execution's state, and the story they share — claude-code writes and commits
 * NOTES.md, then runs out of quota. `close()` stops the service and removes the bench.
 */
import { delimiter } from 'node:path';
import { expect } from 'vitest';
import { type Daemon, startDaemon } from '../e2e/daemon.js';
import { type Bench, FORGE_BIN, GIT_IDENTITY, makeBench } from '../execution/fixture.js';

export interface SimulatedService {
  readonly bench: Bench;
  readonly daemon: Daemon;
  /** Submits a task on the bench's repository (`main`); resolves with the execution's id. */
  submit(task: Record<string, unknown>): Promise<string>;
  stateOf(id: string): Promise<string>;
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
