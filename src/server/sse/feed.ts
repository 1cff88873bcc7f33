/** One shared follower per live execution's `events.jsonl`, fanned out to its SSE clients. */
import { LOG_START, type LogPosition } from '../../events/decode.js';
import type { EventRecord } from '../../events/schema.js';
import { followBatches } from '../../events/tail.js';

/** A record as the feed hands it out: its sequence (position + 1, the SSE id) and the record. */
export interface FeedItem {
  readonly id: number;
  readonly record: EventRecord;
}

/** What a feed tells one of its clients. Both are called synchronously, from the feed's follower. */
export interface FeedListener {
  /** The records of one read of the log, ids ascending and following on from the previous batch. */
  readonly items: (items: readonly FeedItem[]) => void;
  /** The follower failed (e.g. the log became unreadable): the feed is gone; end the client. */
  readonly failed: (error: unknown) => void;
}

/** One client's hold on a feed. */
export interface FeedSubscription {
  /**
   * Starts the feed's follower at `at` unless it has started, and returns where it started. The caller
   * passes the end of its own replay of the log; if the answer is later than that (another client's
   * replay read further and started the feed first), the caller replays on up to it.
   */
  start(at: LogPosition): LogPosition;
  /** Where the feed's follower started, without starting it: undefined while no client has. */
  startedAt(): LogPosition | undefined;
  /** Stops listening; the last listener stops the follower. Idempotent. */
  close(): void;
}

interface Feed {
  readonly listeners: Set<FeedListener>;
  readonly stop: AbortController;
  /** Where the follower started; undefined until a client's replay has started it. */
  started: LogPosition | undefined;
  /** Where the follower's last read ended. */
  latest: LogPosition;
}

/**
 * Feeds keeps one follower per log path while it has listeners, so an append is read, parsed and
 * handed out once however many clients watch it (a follower per client costs a read and a parse per
 * client per record, which saturated 2 cores at 100 clients × 200 records/s: p50 120 ms).
 *
 * A client listens first, then replays the log from disk, then starts the feed at the end of its
 * replay (`FeedSubscription.start`): so the follower starts where the data on disk ended, knowing the
 * record count there, instead of reading and parsing the whole history again, and its ids are still the
 * log's. Once started, a feed also tells a resuming client where to start its replay (`resumeAt`), so
 * a reconnect near the live end reads only the tail of a long history.
 *
 * When a follower fails, every listener is told (`failed`) and the feed is dropped, so the next client
 * starts a fresh one. The last listener's `close` stops the follower. Owned by one route instance;
 * single-threaded like the rest of the daemon.
 */
export class Feeds {
  readonly #feeds = new Map<string, Feed>();

  /** Adds `listener` to the feed of `path` (creating it, not started, if there is none). */
  listen(path: string, listener: FeedListener): FeedSubscription {
    let feed = this.#feeds.get(path);
    if (feed === undefined) {
      feed = { listeners: new Set(), stop: new AbortController(), started: undefined, latest: LOG_START };
      this.#feeds.set(path, feed);
    }
    const joined = feed;
    joined.listeners.add(listener);
    return {
      start: (at) => {
        if (joined.started === undefined && !joined.stop.signal.aborted) {
          joined.started = at;
          joined.latest = at;
          void this.#pump(path, joined);
        }
        return joined.started ?? at;
      },
      startedAt: () => joined.started,
      close: () => {
        if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
        if (this.#feeds.get(path) === joined) this.#feeds.delete(path);
        joined.stop.abort();
      },
    };
  }

  /**
   * Where a client that skips the first `from` records of `path` can start its replay without missing
   * one: the furthest position the live feed knows with at most `from` records before it, else the
   * start of the log.
   */
  resumeAt(path: string, from: number): LogPosition {
    const feed = this.#feeds.get(path);
    if (feed?.started === undefined) return LOG_START;
    if (feed.latest.records <= from) return feed.latest;
    return feed.started.records <= from ? feed.started : LOG_START;
  }

  async #pump(path: string, feed: Feed): Promise<void> {
    try {
      for await (const { records, end } of followBatches(path, { at: feed.latest, signal: feed.stop.signal })) {
        feed.latest = end;
        if (records.length === 0) continue;
        const first = end.records - records.length + 1;
        const items = records.map((record, index) => ({ id: first + index, record }));
        for (const listener of feed.listeners) listener.items(items);
      }
    } catch (error) {
      // A follower that fails (an unreadable log) must not take the daemon down, nor leave its
      // clients waiting on a feed that will never speak again: they are ended (and resume with
      // Last-Event-ID), and the next client starts a fresh feed.
      if (this.#feeds.get(path) === feed) this.#feeds.delete(path);
      feed.stop.abort();
      for (const listener of feed.listeners) listener.failed(error);
      feed.listeners.clear();
    }
  }
}
