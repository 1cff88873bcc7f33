/** One client's event stream: the log replayed from disk from its position, then the live feed. */
import type { LogPosition } from '../../events/decode.js';
import { type ClientStreamOptions, startClientStream } from './client-stream.js';
import type { FeedItem, FeedSubscription, Feeds } from './feed.js';
import { recordFrame } from './frames.js';
import { joinChunks, type Outbox } from './outbox.js';
import { replayEvents } from './replay.js';

/** What one client's stream reads and how. */
export interface EventStreamOptions extends ClientStreamOptions {
  /** The execution's `events.jsonl`. */
  readonly path: string;
  /** The execution had ended when the client connected: replay to the end of the file, then end. */
  readonly ended: boolean;
  /** The live executions' shared followers. */
  readonly feeds: Feeds;
}

/**
 * streamEvents starts one client's stream and returns its outbox, for the caller to attach to the
 * response (sse/body.ts); the framing and ordering contract is the events route's. The client listens
 * to the execution's feed before replaying from disk, so a record appended meanwhile is either read
 * from disk or queued from the feed (or both: it is sent once, by id). The replay starts where the
 * feed knows the client's position to be (`Feeds.resumeAt`), and where it ends is where the feed
 * starts if it has not yet (`FeedSubscription.start`). A client in step with the feed gets each of its
 * batches as one chunk shared with the others. Every record is sent, those after an `execution.ended`
 * too; the stream ends where the last record it has read is an `execution.ended`. A live client more
 * than the outbox's high water behind is ended, and so are all of a feed's clients when its follower
 * fails: they resume from disk with Last-Event-ID. The stream (client-stream.ts) owns its heartbeat,
 * outbox and feed listener, all released when it ends or the client goes away.
 */
export function streamEvents(options: EventStreamOptions): Outbox {
  return startClientStream(options, async ({ signal, outbox, stop, onStop }) => {
    let subscription: FeedSubscription | undefined;
    onStop(() => subscription?.close());
    let sent = options.from; // the id of the last record handled: sent, or skipped for its size
    // True while the last record handled is `execution.ended`. Records after one (a follow-up's
    // `message.queued`, then `execution.reopened`) are sent like any other and make it false again.
    let finished = false;
    const send = (item: FeedItem): void => {
      if (item.id <= sent) return; // already sent (the replay and the feed overlap)
      sent = item.id;
      const frame = frameOf(item);
      if (frame !== undefined) outbox.push(frame);
      finished = item.record.type === 'execution.ended';
    };
    let queued: FeedItem[] | undefined = []; // what the feed handed out during the replay
    const done = new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => resolve(), { once: true });
      if (options.ended) return;
      subscription = options.feeds.listen(options.path, {
        items: (items) => {
          if (queued !== undefined) {
            for (const item of items) queued.push(item);
            return;
          }
          const batch = framesOf(items);
          if (items[0]?.id === sent + 1) {
            // The usual case, a client in step with the feed: the batch's one chunk, shared.
            if (batch.bytes.byteLength > 0) outbox.push(batch.bytes);
            sent = batch.lastId;
            finished = batch.ended;
          } else for (const item of items) send(item);
          // A client this far behind is dropped rather than buffered: it reconnects with
          // Last-Event-ID and catches up from disk.
          if (finished || outbox.full) stop();
        },
        failed: stop,
      });
    });
    let at: LogPosition = options.feeds.resumeAt(options.path, options.from);
    for (;;) {
      for await (const batch of replayEvents(options.path, { from: options.from, at, signal })) {
        at = batch.end;
        const first = at.records - batch.records.length + 1;
        for (const [index, record] of batch.records.entries()) send({ id: first + index, record });
        // The replay reads to the end of the file: records may follow an `execution.ended`.
        if (outbox.full) await outbox.drained();
      }
      if (signal.aborted || subscription === undefined) break;
      // The feed starts where the replay ended, unless the replay ended on `execution.ended` (the
      // stream ends there, unless the feed has read past it). Another client's replay may have read
      // further and started the feed there: then read on up to it.
      const started = finished ? subscription.startedAt() : subscription.start(at);
      if (started === undefined || started.records <= at.records) break;
    }
    for (const item of queued) send(item);
    queued = undefined;
    if (finished || subscription === undefined) stop();
    await done;
  });
}

/** Frames already made: a shared feed's item is serialized and encoded once for all its clients. */
const frames = new WeakMap<FeedItem, Uint8Array | null>();

/** A feed batch's frames in one chunk, oversized records left out. */
interface BatchFrames {
  readonly bytes: Uint8Array;
  /** The id of the batch's last record (sent or skipped for its size). */
  readonly lastId: number;
  /** The batch's last record is `execution.ended`. */
  readonly ended: boolean;
}

const batches = new WeakMap<readonly FeedItem[], BatchFrames>();

/**
 * The frames of a feed batch as one chunk, made once for all the clients in step with the feed: a
 * 50-record burst is then one shared chunk rather than 50 frames joined again for each client.
 */
function framesOf(items: readonly FeedItem[]): BatchFrames {
  let batch = batches.get(items);
  if (batch === undefined) {
    const parts: Uint8Array[] = [];
    let lastId = 0;
    let ended = false;
    for (const item of items) {
      const frame = frameOf(item);
      if (frame !== undefined) parts.push(frame);
      lastId = item.id;
      ended = item.record.type === 'execution.ended';
    }
    batch = { bytes: parts.length === 1 ? (parts[0] as Uint8Array) : joinChunks(parts), lastId, ended };
    batches.set(items, batch);
  }
  return batch;
}

/** The SSE frame of a record, or undefined for one over `MAX_RECORD_BYTES`. JSON has no raw newline. */
function frameOf(item: FeedItem): Uint8Array | undefined {
  let frame = frames.get(item);
  if (frame === undefined) {
    frame = recordFrame(item.record, item.id) ?? null;
    frames.set(item, frame);
  }
  return frame ?? undefined;
}
