/**
 * The bound on one record of `events.jsonl`: its line, without the newline, is at most
 * `RECORD_LIMIT_BYTES` of UTF-8. `boundedLine` serializes a record within it, cutting one that would
 * be longer: first its long texts, the longest first, each keeping its start and ending with
 * `textCutMarker(dropped)`; then, if that is not enough, the last items of its lists, the longest
 * list first. A cut record says so in its envelope, `truncated: {droppedBytes}`. Pure and free of
 * zod, so every writer of the log can afford it.
 */

/**
 * The most UTF-8 bytes of one record's line: 1 MiB. Every reader parses a record whole (the CLI, the
 * Workbench over SSE, the handoff, the event mirror) and the daemon holds it while it writes it, so
 * one record must not cost the megabytes a harness can print on one line. It is also the largest
 * record the event stream sends (server/sse/frames.ts `MAX_RECORD_BYTES`), so every record the log
 * holds reaches the Workbench. An ordinary record is a few hundred bytes and a tool result is clipped
 * to 4,000 characters (harnesses/lines.ts), so only a raw line, a prompt or a workspace's list of
 * changed files comes near it.
 */
export const RECORD_LIMIT_BYTES = 1024 * 1024;

/**
 * A text is cut only when longer than 4,096 characters, and to no fewer: a path, a command or a name
 * is never cut, and a cut message keeps as much as a clipped tool output (4,000 characters).
 */
const TEXT_FLOOR_CHARS = 4096;

/** What ends a cut text: the count of its UTF-8 bytes that were not kept. */
export function textCutMarker(droppedBytes: number): string {
  return ` … [HarmFlow dropped ${droppedBytes} bytes of this text]`;
}

const MARKER_ROOM = Buffer.byteLength(textCutMarker(Number.MAX_SAFE_INTEGER));
const TRUNCATED_ROOM = Buffer.byteLength(`"truncated":{"droppedBytes":${Number.MAX_SAFE_INTEGER}},`);

/**
 * Serializes `record` (an event record, or its draft with the envelope filled) as one line of at most
 * `limit` bytes: as it is when it fits, cut (see above) when not; only its `data` is cut, and a
 * `truncated` it already had is added to. Returns undefined when even cut it would not fit: nothing
 * long enough to cut (a record of many short fields). `JSON.stringify`'s errors are thrown.
 */
export function boundedLine(record: object, limit = RECORD_LIMIT_BYTES): string | undefined {
  const line = JSON.stringify(record);
  const bytes = Buffer.byteLength(line);
  if (bytes <= limit) return line;
  // A copy to cut, with exactly what the line says: JSON drops undefined and calls toJSON.
  const { data, truncated, ...envelope } = JSON.parse(line) as { data?: unknown; truncated?: { droppedBytes: number } };
  const holder = { data };
  const dropped = cut(holder, bytes + TRUNCATED_ROOM - limit);
  const droppedBytes = (truncated?.droppedBytes ?? 0) + dropped;
  const bounded = JSON.stringify({ ...envelope, truncated: { droppedBytes }, data: holder.data });
  return Buffer.byteLength(bounded) <= limit ? bounded : undefined;
}

/** Where a value sits: `holder[key]`, and how many bytes its JSON takes. */
interface Slot {
  readonly holder: Holder;
  readonly key: string | number;
  readonly bytes: number;
}

/** An object or a list, indexed alike. */
type Holder = Record<string | number, unknown>;

/** Cuts texts, then lists, under `holder` until its JSON is `over` bytes shorter; returns the bytes dropped. */
function cut(holder: { data: unknown }, over: number): number {
  const texts: Slot[] = [];
  const lists: Slot[] = [];
  collect(holder as Holder, 'data', texts, lists);
  let left = over;
  let dropped = 0;
  for (const slot of texts.sort(longestFirst)) {
    if (left <= 0) break;
    const shorter = cutText(slot.holder[slot.key] as string, slot.bytes - left);
    const saved = slot.bytes - jsonBytes(shorter.text);
    // A text barely over the floor may not get shorter with the marker.
    if (saved <= 0) continue;
    slot.holder[slot.key] = shorter.text;
    dropped += shorter.dropped;
    left -= saved;
  }
  // Items of a list dropped with an outer list's item are not counted twice.
  const gone = new WeakSet<object>();
  for (const slot of lists.sort(longestFirst)) {
    if (left <= 0) break;
    const list = slot.holder[slot.key] as unknown[];
    if (gone.has(list)) continue;
    while (left > 0 && list.length > 0) {
      const item = list.pop();
      // An item's JSON and the comma before it (none before the first).
      const bytes = jsonBytes(item) + (list.length > 0 ? 1 : 0);
      forget(item, gone);
      dropped += bytes;
      left -= bytes;
    }
  }
  return dropped;
}

/** Finds the texts long enough to cut and every list, at `holder[key]` and under it. */
function collect(holder: Holder, key: string | number, texts: Slot[], lists: Slot[]): void {
  const value = holder[key];
  if (typeof value === 'string') {
    if (value.length > TEXT_FLOOR_CHARS) texts.push({ holder, key, bytes: jsonBytes(value) });
  } else if (Array.isArray(value)) {
    lists.push({ holder, key, bytes: jsonBytes(value) });
    for (let index = 0; index < value.length; index++) collect(value as unknown as Holder, index, texts, lists);
  } else if (typeof value === 'object' && value !== null) {
    for (const name of Object.keys(value)) collect(value as Holder, name, texts, lists);
  }
}

/**
 * Cuts `text` so that its JSON, marker included, takes at most `target` bytes, keeping at least the
 * floor (so it may take more) and never half a surrogate pair.
 */
function cutText(text: string, target: number): { text: string; dropped: number } {
  let cost = 2 + MARKER_ROOM; // the quotes and the marker
  let end = 0;
  while (end < text.length) {
    const point = text.codePointAt(end) as number;
    const width = point > 0xffff ? 2 : 1;
    if (end >= TEXT_FLOOR_CHARS && cost + jsonCost(point) > target) break;
    cost += jsonCost(point);
    end += width;
  }
  const kept = text.slice(0, end);
  const dropped = Buffer.byteLength(text) - Buffer.byteLength(kept);
  return { text: kept + textCutMarker(dropped), dropped };
}

/** The bytes one code point takes in a JSON string (UTF-8, with JSON.stringify's escapes). */
function jsonCost(point: number): number {
  if (point === 0x22 || point === 0x5c) return 2; // \" \\
  if (point < 0x20) return point === 8 || point === 9 || point === 10 || point === 12 || point === 13 ? 2 : 6;
  if (point < 0x80) return 1;
  if (point < 0x800) return 2;
  if (point >= 0xd800 && point <= 0xdfff) return 6; // a lone surrogate, escaped as \udXXX
  return point > 0xffff ? 4 : 3;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

function forget(value: unknown, gone: WeakSet<object>): void {
  if (Array.isArray(value)) gone.add(value);
  if (typeof value === 'object' && value !== null) for (const inner of Object.values(value)) forget(inner, gone);
}

function longestFirst(a: Slot, b: Slot): number {
  return b.bytes - a.bytes;
}
