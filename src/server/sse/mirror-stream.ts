/** One client's event stream read from the PostgreSQL event mirror (cluster mode, issue 9). */
import type { PgEventSource } from '../../events/mirror/event-source.js';
import { type ClientStreamOptions, startClientStream } from './client-stream.js';
import { recordFrame } from './frames.js';
import type { Outbox } from './outbox.js';

/**
 * 10 s: how long the stream of an execution that had ended when its client connected waits for a
 * mirrored record before it ends. A worker mirrors each record at most 200 ms after appending it and
 * catches the mirror up once more before it lets the execution go (cluster/drive-job.ts), so the
 * `execution.ended` record of an ended execution is normally mirrored already or a moment later;
 * derived, not measured. It bounds only a mirror that never gets one (a worker lost between recording
 * the end and its last catch-up): the client then sees the stream end, as from an ended log.
 */
export const MIRROR_SETTLE_MS = 10_000;

export interface MirrorStreamOptions extends ClientStreamOptions {
  /** The mirror's reading side. */
  readonly source: Pick<PgEventSource, 'read' | 'follow'>;
  /** The execution was in a final state when the client connected. */
  readonly ended: boolean;
  /** Default `MIRROR_SETTLE_MS`. */
  readonly settleMs?: number;
}

/**
 * streamMirror starts one client's stream of `execution`'s mirrored records and returns its outbox;
 * the framing and the contract are the events route's (routes/events.ts): `event: connected`, then
 * each record after the first `from` with `id:` = its position + 1, in order, each once, records over
 * MAX_RECORD_BYTES skipped but counted. It follows the mirror (PgEventSource.follow) and ends after
 * an `execution.ended` that is the last record mirrored; the records the mirror already holds after
 * one (a follow-up reopening a succeeded execution: its `message.queued`, `execution.reopened`, the
 * new turn) are followed like any other. A client connecting just past an `execution.ended` that
 * nothing follows, of an ended execution, gets no records and the stream ends; one of an ended
 * execution whose mirror gets nothing new for `settleMs` is ended too. A slow client slows its
 * own reads (the follower waits for the outbox to drain) instead of being dropped. A failed read cuts
 * the stream off; the client resumes with Last-Event-ID.
 */
export function streamMirror(options: MirrorStreamOptions): Outbox {
  const { source, execution } = options;
  const settleMs = options.settleMs ?? MIRROR_SETTLE_MS;
  return startClientStream(options, async ({ signal, outbox }) => {
    let cursor = options.from;
    if (options.ended && (await endsBefore(source, execution, cursor))) return;
    for (;;) {
      const following = new AbortController();
      const abort = (): void => following.abort();
      signal.addEventListener('abort', abort, { once: true });
      let settle: NodeJS.Timeout | undefined;
      const arm = (): void => {
        if (!options.ended) return;
        clearTimeout(settle);
        settle = setTimeout(abort, settleMs);
      };
      let ended = false;
      try {
        arm();
        for await (const item of source.follow(execution, cursor, following.signal)) {
          clearTimeout(settle);
          cursor = item.position + 1;
          const frame = recordFrame(item.record, cursor);
          if (frame !== undefined) outbox.push(frame);
          ended = item.record.type === 'execution.ended';
          if (outbox.full) await outbox.drained();
          arm();
        }
      } finally {
        clearTimeout(settle);
        signal.removeEventListener('abort', abort);
      }
      // The follower returns after `execution.ended`, or when the client left or the wait settled.
      if (!ended || signal.aborted) return;
      if ((await source.read(execution, cursor)).length === 0) return;
    }
  });
}

/** True when the record just before `from` is `execution.ended` and the mirror holds none after it. */
async function endsBefore(source: Pick<PgEventSource, 'read'>, execution: string, from: number): Promise<boolean> {
  if (from === 0) return false;
  const [before, after] = await source.read(execution, from - 1);
  return before?.position === from - 1 && before.record.type === 'execution.ended' && after === undefined;
}
