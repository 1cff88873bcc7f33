/** The SSE frames of an execution's event stream, the same whichever log it is read from. */
import type { EventRecord } from '../../events/schema.js';

/**
 * 1 MiB: the largest record sent. Producers keep records small (tool output is clipped to 4000
 * characters, harnesses/lines.ts), so a bigger one is a damaged or foreign line; sent, it would sit
 * whole in every subscriber's outbox and in every browser's EventSource buffer, one copy per client.
 * It is skipped but keeps its position, so `id:` and `from` still count it (the log numbers it).
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

/** Bytes with an ArrayBuffer of their own (not Buffer's shared pool), safe to share between streams. */
export function encode(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The heartbeat comment. */
export const HEARTBEAT = encode(': heartbeat\n\n');

/** The first event of every stream: `event: connected` (no id) with `{execution, from}`. */
export function connectedFrame(execution: string, from: number): Uint8Array {
  return encode(`event: connected\ndata: ${JSON.stringify({ execution, from })}\n\n`);
}

/**
 * The frame of the record whose SSE id is `id` (its position + 1): an unnamed event, `data:` the
 * record's JSON, which has no raw newline. Undefined for a record over `MAX_RECORD_BYTES`.
 */
export function recordFrame(record: EventRecord, id: number): Uint8Array | undefined {
  const data = JSON.stringify(record);
  // A UTF-16 unit is at most 3 UTF-8 bytes, so only a long record needs the exact count.
  if (data.length * 3 > MAX_RECORD_BYTES && Buffer.byteLength(data) > MAX_RECORD_BYTES) return undefined;
  return encode(`id: ${id}\ndata: ${data}\n\n`);
}
