/**
 * Rebuilding where an open execution stands, for a process that carries on what an earlier one left
 * (the service after a crash or a stop). The sources are the ones the earlier process kept current:
 * context.json (every ended attempt), the store (attempt rows), and events.jsonl (switches made, the
 * follow-ups turns completed, and the harness records of an attempt that never ended).
 *
 * An attempt left open — the earlier process died while it ran — is closed as `crashed` (by
 * `parkForAdmission` as soon as a service adopts the execution, else here): what is left of its
 * process group is killed (its group id is in attempts/<n>/pgid), and its records are replayed
 * through an AttemptObserver so context.json says what it did, and the workspace is inspected for
 * what it left. The caller then starts a new attempt on the same link of the chain
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

/**
 * Rebuilds the progress of `execution`: every ended attempt, an attempt left open closed `crashed`
 * first, and each attempt closed without its entry in context.json (closed by `closeLostAttempt`
 * before the execution got a slot) summarized from its records. Returns the number of the attempt
 * that was lost, if one was.
 */
export async function recoverProgress(
  execution: ExecutionRecord,
  task: Task,
  home: HomePaths,
  store: Store,
  recorder: Recorder,
): Promise<{ progress: Progress; openAttempt?: number }> {
  const attempts = readAttempts(home.contextFile(execution.id));
  const closed = await closeLostAttempt(execution, task, home, store, recorder);
  // Every record but the harness's raw lines, which may be a gigabyte and say nothing recovery reads.
  const records = readEvents(home.eventsFile(execution.id), { keep: (record) => record.type !== 'raw' });
  const rows = await store.listAttempts(execution.id);
  let lost: number | undefined = closed;
  for (const row of rows) {
    if (attempts.some((attempt) => attempt.number === row.number)) continue;
    attempts.push(await summarizeLostAttempt(row, execution, task, records));
    attempts.sort((a, b) => a.number - b.number);
    lost = row.number;
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
      startedTurns: new Set(records.flatMap((record) => (record.type === 'turn.started' ? [record.data.turn] : []))),
      chainIndex,
      switchesMade: counted,
      nextNumber: (last?.number ?? 0) + 1,
    },
    ...(lost !== undefined && { openAttempt: lost }),
  };
}

/**
 * Makes an execution an earlier process left, or one reopened by a follow-up, wait for admission
 * truthfully: an attempt left open is closed `crashed` now (what is left of its process group is
 * killed: it would otherwise work on while the execution waits for a slot), and the store says
 * `queued` until a slot is free. A new execution is already `queued`: nothing changes. Called by
 * the service's owner before it waits for its slot.
 */
export async function parkForAdmission(
  execution: ExecutionRecord,
  task: Task,
  home: HomePaths,
  store: Store,
  recorder: Recorder,
): Promise<void> {
  await closeLostAttempt(execution, task, home, store, recorder);
  if (execution.state !== 'queued') {
    await store.updateExecution(execution.id, { state: 'queued', endedAt: null, message: null });
  }
}

/**
 * True when the execution's log says it ended and nothing carried it on since: a follow-up reopens
 * it (a new deadline, the last attempt's session resumed) rather than a restart carrying it on.
 * The log decides, not the store's state, which says `queued` while the reopened execution waits
 * for admission.
 */
export function endedLast(records: readonly EventRecord[]): boolean {
  for (let at = records.length - 1; at >= 0; at -= 1) {
    const type = records[at]?.type;
    if (type === 'execution.ended') return true;
    if (type === 'execution.started' || type === 'execution.resumed' || type === 'execution.reopened') return false;
  }
  return false;
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

/**
 * Closes, as `crashed`, the attempt of `execution` that an earlier process left open, if there is
 * one: kills what is left of its process group, records `attempt.ended` and closes its store row.
 * Returns its number. Its context.json entry is written later, by `recoverProgress`.
 */
async function closeLostAttempt(
  execution: ExecutionRecord,
  task: Task,
  home: HomePaths,
  store: Store,
  recorder: Recorder,
): Promise<number | undefined> {
  const open = (await store.listAttempts(execution.id)).find((row) => row.endedAt === undefined);
  if (open === undefined) return undefined;
  const summarized = readAttempts(home.contextFile(execution.id)).find((attempt) => attempt.number === open.number);
  if (summarized !== undefined) {
    // It ended and context.json has it; the process stopped before its store row was closed.
    await store.updateAttempt(execution.id, open.number, {
      endedAt: summarized.endedAt,
      outcome: summarized.outcome,
      ...compact({ message: summarized.message, sessionId: summarized.sessionId }),
    });
    return undefined;
  }
  killLeftovers(join(home.attemptDir(execution.id, open.number), 'pgid'));
  const records = readEvents(home.eventsFile(execution.id), {
    keep: (record) => record.attempt === open.number && record.source === 'harness' && record.type !== 'raw',
  });
  const observer = replayAttempt(open.number, execution, task, records);
  const endedAt = new Date().toISOString();
  recorder.executor(
    'attempt.ended',
    {
      outcome: 'crashed',
      exitCode: null,
      signal: null,
      ...compact({ message: CRASHED_MESSAGE, sessionId: observer.sessionId }),
      durationMs: Date.parse(endedAt) - Date.parse(open.startedAt),
    },
    { number: open.number, harness: open.harness },
  );
  await store.updateAttempt(execution.id, open.number, {
    endedAt,
    outcome: 'crashed',
    message: CRASHED_MESSAGE,
    ...compact({ sessionId: observer.sessionId, model: observer.model, ...observer.usage }),
  });
  return open.number;
}

/** An observer fed the harness records of attempt `number`, as they were seen while it ran. */
function replayAttempt(
  number: number,
  execution: ExecutionRecord,
  task: Task,
  records: readonly EventRecord[],
): AttemptObserver {
  const observer = new AttemptObserver(task.name, execution.worktree);
  for (const record of records) {
    if (record.attempt === number && record.source === 'harness') {
      observer.observe({ type: record.type, data: record.data } as HarnessEvent);
    }
  }
  return observer;
}

/** The context.json entry of an attempt closed without one: what its records and the workspace show. */
async function summarizeLostAttempt(
  row: AttemptRecord,
  execution: ExecutionRecord,
  task: Task,
  records: readonly EventRecord[],
): Promise<AttemptContext> {
  const observer = replayAttempt(row.number, execution, task, records);
  const attemptRecords = records.filter((record) => record.attempt === row.number);
  const after = await inspectWorkspace({
    worktree: execution.worktree,
    baseSha: execution.baseSha,
    branch: execution.branch,
  }).catch(() => undefined);
  const outcome = row.outcome ?? 'crashed';
  const message = row.message ?? CRASHED_MESSAGE;
  const resumedSession = attemptRecords.find((record) => record.type === 'attempt.started')?.data.resumedSession;
  const turns = attemptRecords.flatMap((record) => (record.type === 'turn.started' ? [record.data.turn] : []));
  return observer.summarize(
    {
      number: row.number,
      harness: row.harness,
      ...(row.model !== undefined && { model: row.model }),
      simulated: row.simulated,
      outcome,
      message,
      startedAt: row.startedAt,
      endedAt: row.endedAt ?? new Date().toISOString(),
      ...(resumedSession !== undefined && { resumedSession }),
      turns,
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
