/** Following an execution's `events.jsonl` as it grows: `harmflow events --follow` and the SSE stream. */
import { type FSWatcher, readSync, watch } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { type InvalidLineHandler, LOG_START, type LogPosition, type RecordBatch, RecordDecoder } from './decode.js';
import type { EventRecord } from './schema.js';
import { Wakeup } from './wakeup.js';

/**
 * 500 ms between polls. An append is seen at once without polling: an `openEventLog` in this process
 * wakes the followers of its file right after its write (`notifyAppended`), and `fs.watch` (inotify)
 * reports other processes' appends within 0.12 ms (median; 0.7 ms max over 200 appends, ext4). Polling
 * only covers what neither sees: a log another process creates, and filesystems written from another
 * machine (NFS, some container bind mounts). There a follower still shows a record within half a
 * second, for one read(2) per follower per tick.
 */
export const TAIL_POLL_MS = 500;

/** 64 KiB a read: replaying a long history takes few reads, and a record seldom spans two. */
const READ_CHUNK_BYTES = 64 * 1024;

/** How to follow a log. */
export interface FollowOptions {
  /** Skip the first `from` records (the SSE `Last-Event-ID`; sequence semantics: decode.ts). Default 0. */
  readonly from?: number;
  /** Where to start reading: a position known to end a line (decode.ts); default the start of the file. */
  readonly at?: LogPosition;
  /** Ends the iteration. */
  readonly signal: AbortSignal;
  /** Receives each complete line that is not a valid record; such lines are skipped. */
  readonly onInvalid?: InvalidLineHandler;
  /** Milliseconds between polls; default `TAIL_POLL_MS`. */
  readonly pollMs?: number;
}

/**
 * followEvents yields the records of the log at `path` after the first `from`, in file order:
 * first those already written, then each new one as the file grows. A partial last line is held until
 * its newline arrives. A missing file is waited for. It ends (returns, never throws on abort) when
 * `signal` aborts or the consumer stops iterating; it then releases its watcher, timer and file handle.
 * The file is append-only: a follower never re-reads what it has read. One consumer per iteration.
 */
export async function* followEvents(
  path: string,
  options: FollowOptions,
): AsyncGenerator<EventRecord, void, undefined> {
  for await (const batch of followBatches(path, options)) {
    for (const record of batch.records) {
      if (options.signal.aborted) return;
      yield record;
    }
  }
}

/**
 * followBatches is `followEvents` a read at a time: each batch holds the records one read completed
 * (possibly none) and the position they end at, so a consumer can number them (the last one's
 * sequence is `end.records - 1`) and hand a burst on at once. Same contract otherwise.
 */
export async function* followBatches(
  path: string,
  options: FollowOptions,
): AsyncGenerator<RecordBatch, void, undefined> {
  const { signal } = options;
  const pollMs = options.pollMs ?? TAIL_POLL_MS;
  const at = options.at ?? LOG_START;
  const decoder = new RecordDecoder(options.from ?? 0, options.onInvalid, at);
  const wakeup = new Wakeup();
  const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let watcher: FSWatcher | undefined;
  let file: FileHandle | undefined;
  let position = at.bytes;
  let told = false; // the last wake-up was a report of an append, not the poll timer

  const unsubscribe = (): void => {
    watcher?.close();
    watcher = undefined;
  };
  const subscribe = (): FSWatcher | undefined => {
    try {
      const subscribed = watch(path, () => wakeup.notify());
      subscribed.on('error', () => {
        subscribed.close();
        if (watcher === subscribed) watcher = undefined;
        wakeup.notify();
      });
      return subscribed;
    } catch {
      return undefined; // The file does not exist yet: polling finds it, and the next round watches it.
    }
  };
  // Closing the watcher at once lets the process exit even if the consumer never resumes us.
  signal.addEventListener('abort', unsubscribe, { once: true });
  const unlisten = listenLocally(path, wakeup);
  try {
    while (!signal.aborted) {
      // Subscribe before reading, so an append between the read and the wait still wakes us.
      watcher ??= subscribe();
      file ??= await openIfExists(path);
      const bytesRead = file === undefined ? 0 : await readAt(file, chunk, position, told);
      if (bytesRead > 0) {
        position += bytesRead;
        const records = decoder.push(chunk.subarray(0, bytesRead));
        if (signal.aborted) return;
        yield { records, end: decoder.position };
      }
      // A short read reached the end of the file: wait for it to grow. (Every append after the read
      // began has woken, or will wake, the wait.)
      if (bytesRead < chunk.length) told = await wakeup.wait(pollMs, signal);
    }
  } finally {
    signal.removeEventListener('abort', unsubscribe);
    unsubscribe();
    unlisten();
    await file?.close();
  }
}

/** The wakeups of this process's followers, by resolved log path (see `notifyAppended`). */
const localFollowers = new Map<string, Set<Wakeup>>();

function listenLocally(path: string, wakeup: Wakeup): () => void {
  const key = resolvePath(path);
  const wakeups = localFollowers.get(key) ?? new Set<Wakeup>();
  localFollowers.set(key, wakeups);
  wakeups.add(wakeup);
  return () => {
    wakeups.delete(wakeup);
    if (wakeups.size === 0 && localFollowers.get(key) === wakeups) localFollowers.delete(key);
  };
}

/**
 * notifyAppended wakes this process's followers of the log at `path` at once; `openEventLog` calls it
 * right after each append. It only shortens the wait: other processes' appends (gates, `harmflow run`
 * in another terminal) are seen through `fs.watch`, so a follower never depends on it. It costs a map
 * lookup when nobody follows the file, and never throws.
 */
export function notifyAppended(path: string): void {
  const wakeups = localFollowers.get(resolvePath(path));
  if (wakeups !== undefined) for (const wakeup of wakeups) wakeup.notify();
}

/**
 * Reads at `position` into `chunk`. After a report of an append (this process's, or inotify's, which
 * sees local writes only) the file is local and the new bytes are in the page cache: the read is a
 * copy of a few hundred bytes, ~10 µs, so it is made synchronously, sparing the two thread wake-ups of
 * an asynchronous read (on the benchmark machine they made append → feed 0.27 ms median rather than
 * 0.18 ms, of a 2 ms delivery target). A read the poll timer asked for, or the first one, may reach a
 * network filesystem, so it is asynchronous.
 */
async function readAt(file: FileHandle, chunk: Buffer, position: number, told: boolean): Promise<number> {
  if (told) return readSync(file.fd, chunk, 0, chunk.length, position);
  return (await file.read(chunk, 0, chunk.length, position)).bytesRead;
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  // Loaded on first follow: a reader that never follows (`harmflow events`) does not pay for it.
  const { open } = await import('node:fs/promises');
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
