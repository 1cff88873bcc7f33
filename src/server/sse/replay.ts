/** Replaying a finished execution's `events.jsonl` to its end (a live one is followed: events/tail.ts). */
import { open } from 'node:fs/promises';
import { RecordDecoder } from '../../events/decode.js';
import type { EventRecord } from '../../events/schema.js';

/** 64 KiB a read, as the tail reads: a long history in few reads, and a record seldom spans two. */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * replayEvents yields the records of the log at `path` after the first `from`, in file order, and
 * returns at the end of the file. It numbers records exactly as `readEvents` and `followEvents` do
 * (one RecordDecoder), so `from` means the same in all three; a partial last line is not yielded.
 * Unlike `readEvents` it reads asynchronously, chunk by chunk, so replaying a long history neither
 * blocks the event loop nor holds the whole file. A missing file has no records. It stops early when
 * `signal` aborts or the consumer stops iterating, and always closes the file.
 */
export async function* replayEvents(
  path: string,
  options: { readonly from: number; readonly signal: AbortSignal },
): AsyncGenerator<EventRecord, void, undefined> {
  const file = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (file === undefined) return;
  try {
    const decoder = new RecordDecoder(options.from);
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let position = 0;
    while (!options.signal.aborted) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      for (const record of decoder.push(chunk.subarray(0, bytesRead))) {
        if (options.signal.aborted) return;
        yield record;
      }
    }
  } finally {
    await file.close();
  }
}
