/**
 * One record of each kind, related (the execution is the task's, the attempt the execution's), for
 * the adapters' own tests; the conformance suite (conformance.ts) has its own.
 */
import type { AttemptRecord, ExecutionRecord, QuotaRecord, TaskRecord } from '../../src/store/store.js';

export const task: TaskRecord = {
  id: 't1',
  name: 'demo',
  definition: { prompt: 'hi' },
  createdAt: '2025-03-01T10:00:00.000Z',
};
export const execution: ExecutionRecord = {
  id: '01jf3k9x7q2m4n6p8r0s2t4v6w',
  taskId: 't1',
  taskName: 'demo',
  repo: '/r',
  baseRef: 'main',
  baseSha: 'c'.repeat(40),
  branch: 'harmflow/demo-01jf3k9x7q2m4n6p8r0s2t4v6w',
  worktree: '/w',
  runDir: '/d',
  state: 'running',
  createdAt: '2025-03-01T10:00:00.000Z',
  deadline: '2025-03-01T10:30:00.000Z',
  attemptCount: 1,
};
export const attempt: AttemptRecord = {
  execution: execution.id,
  number: 1,
  harness: 'codex',
  simulated: true,
  startedAt: '2025-03-01T10:00:01.000Z',
  exitCode: null,
  signal: 'SIGTERM',
};

export const quota: QuotaRecord = {
  harness: 'codex',
  account: '',
  state: 'exhausted',
  resetsAt: '2025-03-01T15:00:00.000Z',
  source: 'quota.exhausted',
  observedAt: '2025-03-01T10:05:00.000Z',
};
