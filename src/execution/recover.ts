/**
 * Rebuilding where an open execution stands, for a process that carries on what an earlier one left
 * (the service after a crash or a stop). The sources are the ones the earlier process kept current:
 * context.json (every ended attempt), the store (attempt rows), and events.jsonl (switches made, the
 * follow-ups turns completed, and the harness records of an attempt that never ended).
 *
 * An attempt left open — the earlier process died while it ran — is closed here as `crashed`: what
 * is left of its process group is killed (its group id is in attempts/<n>/pgid), its records are
 * replayed through an AttemptObserver so context.json says what it did, and the workspace is
 * inspected for what it left. The caller then starts a new attempt on the same link of the chain
 * with the usual handoff; a restart is not a switch.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compact } from '../core/compact.js';
import type { HomePaths } from '../core/home.js';
import type { Task } from '../core/task.js';
import { readEvents } from '../events/log.js';
import type { EventRecord, HarnessEvent } from '../events/schema.js';
import type { AttemptRecord, ExecutionRecord, Store } from '../store/store.js';
import { inspectWorkspace } from '../workspace/inspect.js';
import { AttemptObserver } from './attempt-observer.js';
import { type AttemptContext, StoredContext } from './context-schema.js';
import type { Progress } from './drive.js';
import { replaySwitches } from './hand-switch.js';
import type { HandledMessage } from './handoff.js';
import { pushedBranches } from './pushed-branches.js';
import type { Recorder } from './recorder.js';

/** What an earlier process's attempt left open is closed with. */
export const CRASHED_MESSAGE = 'HarmFlow stopped while this attempt ran (the service crashed or was killed)';

/** Rebuilds the progress of `execution`, closing an attempt left open; returns its number too. */
export async function recoverProgress(
  execution: ExecutionRecord,
  task: Task,
  home: HomePaths,
  store: Store,
  recorder: Recorder,
): Promise<{ progress: Progress; openAttempt?: number }> {
  const records = readEvents(home.eventsFile(execution.id));
  const attempts = readAttempts(home.contextFile(execution.id));
  const rows = await store.listAttempts(execution.id);
  const open = rows.find((row) => row.endedAt === undefined);
  if (open !== undefined && !attempts.some((attempt) => attempt.number === open.number)) {
    attempts.push(await closeOpenAttempt(open, execution, task, home, store, records, recorder));
  }
  const counted = records.filter(
    (record) => record.type === 'failover' && (record.data.hand === undefined || task.countManualSwitches),
  ).length;
  const { chain, chainIndex } = replaySwitches(task, records);
  const last = rows.at(-1);
  return {
    progress: {
      chain,
      attempts,
      handled: handledMessages(records),
      chainIndex,
      switchesMade: counted,
      nextNumber: (last?.number ?? 0) + 1,
    },
    ...(open !== undefined && { openAttempt: open.number }),
  };
}

function readAttempts(file: string): AttemptContext[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const parsed = StoredContext.safeParse(JSON.parse(text));
  return parsed.success ? [...parsed.data.attempts] : [];
}

/** The follow-ups whose turns ended `completed`, in the order they ended. */
function handledMessages(records: readonly EventRecord[]): HandledMessage[] {
  const texts = new Map<string, string>();
  const handled: HandledMessage[] = [];
  for (const record of records) {
    if (record.type === 'turn.started') texts.set(record.data.turn, record.data.text);
    if (record.type === 'turn.ended' && record.data.outcome === 'completed' && record.data.turn !== 't1') {
      const text = texts.get(record.data.turn);
      if (text !== undefined && !handled.some((message) => message.turn === record.data.turn)) {
        handled.push({ turn: record.data.turn, text });
      }
    }
  }
  return handled;
}

async function closeOpenAttempt(
  open: AttemptRecord,
  execution: ExecutionRecord,
  task: Task,
  home: HomePaths,
  store: Store,
  records: readonly EventRecord[],
  recorder: Recorder,
): Promise<AttemptContext> {
  killLeftovers(join(home.attemptDir(execution.id, open.number), 'pgid'));
  const observer = new AttemptObserver(task.name, execution.worktree);
  const attemptRecords = records.filter((record) => record.attempt === open.number);
  for (const record of attemptRecords) {
    if (record.source === 'harness') observer.observe({ type: record.type, data: record.data } as HarnessEvent);
  }
  const after = await inspectWorkspace({
    worktree: execution.worktree,
    baseSha: execution.baseSha,
    branch: execution.branch,
  }).catch(() => undefined);
  const endedAt = new Date().toISOString();
  const ref = { number: open.number, harness: open.harness };
  recorder.executor(
    'attempt.ended',
    {
      outcome: 'crashed',
      exitCode: null,
      signal: null,
      ...compact({ message: CRASHED_MESSAGE, sessionId: observer.sessionId }),
      durationMs: Date.parse(endedAt) - Date.parse(open.startedAt),
    },
    ref,
  );
  await store.updateAttempt(execution.id, open.number, {
    endedAt,
    outcome: 'crashed',
    message: CRASHED_MESSAGE,
    ...compact({ sessionId: observer.sessionId, model: observer.model, ...observer.usage }),
  });
  return observer.summarize(
    {
      number: open.number,
      harness: open.harness,
      ...(open.model !== undefined && { model: open.model }),
      simulated: open.simulated,
      outcome: 'crashed',
      message: CRASHED_MESSAGE,
      startedAt: open.startedAt,
      endedAt,
      ...(after && { after }),
      branch: execution.branch,
      pushedBranches: await pushedBranches(execution.worktree, execution.branch, attemptRecords, after),
    },
    attemptRecords,
  );
}

/**
 * Kills the process group an earlier process started for the attempt, if any of it is still alive:
 * its harness would otherwise keep working in the worktree beside the next attempt.
 */
function killLeftovers(pgidFile: string): void {
  let pgid: number;
  try {
    pgid = Number.parseInt(readFileSync(pgidFile, 'utf8'), 10);
  } catch {
    return;
  }
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: nothing of the group is left.
  }
}
