/** Replaying an execution's `events.jsonl` to its end (a live one is followed: events/tail.ts). */
import { open } from 'node:fs/promises';
import { LOG_START, type LogPosition, type RecordBatch, RecordDecoder } from '../../events/decode.js';

/** 64 KiB a read, as the tail reads: a long history in few reads, and a record seldom spans two. */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * replayEvents yields, a read at a time, the records of the log at `path` after the first `from`, in
 * file order, reading from `at` (a position known to end a line, default the start: decode.ts), and
 * returns at the end of the file. It numbers records exactly as `readEvents` and `followEvents` do
 * (one RecordDecoder), so `from` means the same in all three; a partial last line is not yielded. Each
 * batch says where it ends, so the last one is where a follower takes over. Unlike `readEvents` it reads
 * asynchronously, chunk by chunk, so replaying a long history neither blocks the event loop nor holds
 * the whole file. A missing file has no records. It stops early when `signal` aborts or the consumer
 * stops iterating, and always closes the file.
 */
export async function* replayEvents(
  path: string,
  options: { readonly from: number; readonly at?: LogPosition; readonly signal: AbortSignal },
): AsyncGenerator<RecordBatch, void, undefined> {
  const file = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (file === undefined) return;
  try {
    const at = options.at ?? LOG_START;
    const decoder = new RecordDecoder(options.from, undefined, at);
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let position = at.bytes;
    while (!options.signal.aborted) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0 || options.signal.aborted) return;
      position += bytesRead;
      yield { records: decoder.push(chunk.subarray(0, bytesRead)), end: decoder.position };
    }
  } finally {
    await file.close();
  }
}
