/**
 * What the terminal UI's opened execution shows, kept fresh the Workbench's way (dom/detail.ts):
 * - the execution's record, attempts, `context.json` and disk, fetched when it opens and again
 *   `SUMMARY_DELAY_MS` after a record that changes them (summary-triggers.ts);
 * - its records, from one event stream opened with it (the client's `events`, which resumes with
 *   `Last-Event-ID` after a drop, so nothing is lost or repeated) — they feed the timeline, the
 *   transcript and the wait it is in;
 * - its changes, fetched each time the Changes tab is shown.
 * A stream ends with the execution; `followAgain` opens it again after the last record received
 * (`?from=`), for a follow-up message that reopens an ended execution (docs/api.md).
 * Records are handed to React in batches (one render per `FLUSH_MS`, not per record: a long log
 * replays thousands at once). Everything stops when the execution is closed or the app unmounts.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Changes, ExecutionWithAttempts } from '../../cli/client.js';
import type { ExecutionContext } from '../../execution/context-schema.js';
import type { ExecutionDisk } from '../../execution/execution-disk.js';
import { changesSummary, SUMMARY_DELAY_MS } from '../../web/summary-triggers.js';
import { followWait, type Wait } from '../../web/wait.js';
import type { ExecutionSource } from '../source.js';
import type { Tab, TimelineEvent } from './state.js';

/** 50 ms: a live execution's records show at once to the eye, a replay of thousands in a few renders. */
const FLUSH_MS = 50;

export interface DetailData {
  readonly summary: ExecutionWithAttempts | Error | undefined;
  readonly context: ExecutionContext | Error | undefined;
  readonly disk: ExecutionDisk | Error | undefined;
  readonly changes: Changes | Error | undefined;
  readonly events: readonly TimelineEvent[];
  /** The wait the stream has open (a `quota.waiting` not yet ended). */
  readonly wait: Wait | undefined;
  /** How the stream is: `connecting`, `live`, `ended`, or what went wrong (a drop it recovers from says so). */
  readonly stream: string;
}

const NOTHING: DetailData = {
  summary: undefined,
  context: undefined,
  disk: undefined,
  changes: undefined,
  events: [],
  wait: undefined,
  stream: 'connecting',
};

export function useDetail(
  source: ExecutionSource,
  execution: string | undefined,
  tab: Tab | undefined,
): { readonly data: DetailData; readonly followAgain: () => void } {
  const [data, setData] = useState<DetailData>(NOTHING);
  const reopen = useRef<() => void>(() => {});
  const update = useCallback((change: Partial<DetailData>) => setData((previous) => ({ ...previous, ...change })), []);

  useEffect(() => {
    setData(NOTHING);
    if (execution === undefined) return;
    let stopped = false;
    let summaryTimer: NodeJS.Timeout | undefined;
    let flushTimer: NodeJS.Timeout | undefined;
    const events: TimelineEvent[] = [];
    let wait: Wait | undefined;

    const refresh = async (): Promise<void> => {
      const [summary, context, disk] = await Promise.all([
        settled(source.execution(execution)),
        settled(source.context(execution)),
        settled(source.disk(execution)),
      ]);
      if (!stopped) update({ summary, context, disk });
    };
    const scheduleRefresh = (): void => {
      summaryTimer ??= setTimeout(() => {
        summaryTimer = undefined;
        void refresh();
      }, SUMMARY_DELAY_MS);
    };
    const flush = (): void => {
      flushTimer ??= setTimeout(() => {
        flushTimer = undefined;
        if (!stopped) update({ events: events.slice(), wait });
      }, FLUSH_MS);
    };

    let ended = false;
    const follow = (from: number | undefined) =>
      source.events(
        execution,
        {
          onRecord: (record, id) => {
            events.push({ id, record });
            wait = followWait(wait, record);
            if (changesSummary(record.type)) scheduleRefresh();
            flush();
          },
          onConnected: () => update({ stream: 'live' }),
          onEnd: () => {
            ended = true;
            update({ stream: 'ended' });
          },
          onError: (error) => update({ stream: error.message }),
        },
        from,
      );

    void refresh();
    let stream = follow(undefined);
    reopen.current = () => {
      if (stopped || !ended) return;
      ended = false;
      stream = follow(events.at(-1)?.id ?? 0);
    };
    return () => {
      stopped = true;
      reopen.current = () => {};
      stream.close();
      clearTimeout(summaryTimer);
      clearTimeout(flushTimer);
    };
  }, [source, execution, update]);

  const changesShown = execution !== undefined && tab === 'changes';
  const changesFor = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!changesShown || execution === undefined) return;
    let stopped = false;
    if (changesFor.current !== execution) update({ changes: undefined });
    changesFor.current = execution;
    void settled(source.changes(execution)).then((changes) => {
      if (!stopped) update({ changes });
    });
    return () => {
      stopped = true;
    };
  }, [source, execution, changesShown, update]);

  const followAgain = useCallback(() => reopen.current(), []);
  return { data, followAgain };
}

/** The answer, or the error it failed with. */
async function settled<T>(request: Promise<T>): Promise<T | Error> {
  try {
    return await request;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
