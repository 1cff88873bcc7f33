/** Following an execution's `events.jsonl` as it grows: `harmflow events --follow` and the SSE stream. */
import { type FSWatcher, watch } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { type InvalidLineHandler, RecordDecoder } from './decode.js';
import type { EventRecord } from './schema.js';

/**
 * 500 ms between polls. `fs.watch` (inotify) reports an append within 0.12 ms (median; 0.7 ms max over
 * 200 appends, ext4), so polling only covers what watching cannot see: a log that does not exist yet,
 * and filesystems written from another machine (NFS, some container bind mounts). There a follower
 * still shows a record within half a second, for one read(2) per follower per tick.
 */
export const TAIL_POLL_MS = 500;

/** 64 KiB a read: replaying a long history takes few reads, and a record seldom spans two. */
const READ_CHUNK_BYTES = 64 * 1024;

/** How to follow a log. */
export interface FollowOptions {
  /** Skip the first `from` records (the SSE `Last-Event-ID`; sequence semantics: decode.ts). Default 0. */
  readonly from?: number;
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
  const { signal } = options;
  const pollMs = options.pollMs ?? TAIL_POLL_MS;
  const decoder = new RecordDecoder(options.from ?? 0, options.onInvalid);
  const wakeup = new Wakeup();
  const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let watcher: FSWatcher | undefined;
  let file: FileHandle | undefined;
  let position = 0;

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
  try {
    while (!signal.aborted) {
      // Subscribe before reading, so an append between the read and the wait still wakes us.
      watcher ??= subscribe();
      file ??= await openIfExists(path);
      const bytesRead = file === undefined ? 0 : (await file.read(chunk, 0, chunk.length, position)).bytesRead;
      if (bytesRead === 0) {
        await wakeup.wait(pollMs, signal);
        continue;
      }
      position += bytesRead;
      for (const record of decoder.push(chunk.subarray(0, bytesRead))) {
        if (signal.aborted) return;
        yield record;
      }
    }
  } finally {
    signal.removeEventListener('abort', unsubscribe);
    unsubscribe();
    await file?.close();
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Wakeup lets the follower sleep until the watcher reports a change, the poll interval passes, or the
 * signal aborts. A change reported while nobody waits is kept, so the next wait returns at once.
 */
class Wakeup {
  #pending = false;
  #wake: (() => void) | undefined;

  notify(): void {
    if (this.#wake === undefined) this.#pending = true;
    else this.#wake();
  }

  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#pending || signal.aborted) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal.addEventListener('abort', wake, { once: true });
      this.#wake = wake;
    });
  }
}
