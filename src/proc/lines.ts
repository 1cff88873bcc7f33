/**
 * Line splitting for a child's byte stream. A `LineSplitter` turns chunks into whole lines, in order:
 * it splits on the newline byte (a character split between two chunks arrives whole, since UTF-8
 * never uses that byte inside a character), decodes each line from UTF-8, and drops the `\r` of
 * `\r\n`. A line is at most `LINE_LIMIT_BYTES` long: of a longer one the splitter keeps the start
 * and counts, without keeping, the rest up to its newline, then hands on the start followed by
 * `cutLineMarker(dropped)`. So it holds at most the bound plus one chunk, however long a line is; the
 * child's raw log (spawn.ts) has every byte. One splitter serves one stream; it is not shared.
 */

/**
 * The most UTF-8 bytes of one line handed on: 512 KiB. Half the event record's bound (1 MiB,
 * events/bound.ts), because a cut line becomes a `raw` record whose JSON escaping at most doubles the
 * text (a quote or a backslash takes two bytes; the recorded real streams under test/fixtures grow by
 * 12% on average, 100% at most), so the record fits its bound without a second cut. The longest line
 * of those recorded streams is 3 KiB; one over 512 KiB is a tool's whole output, of which the start
 * tells what it was.
 */
export const LINE_LIMIT_BYTES = 512 * 1024;

/** What ends a cut line: the count of the line's bytes that were not kept (`\r\n` not counted). */
export function cutLineMarker(droppedBytes: number): string {
  return ` … [HarmFlow dropped ${droppedBytes} bytes of this line; the raw log keeps it whole]`;
}

/** Room for the marker with the largest count it can name, so a cut line with it stays within the bound. */
const MARKER_ROOM = Buffer.byteLength(cutLineMarker(Number.MAX_SAFE_INTEGER));

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class LineSplitter {
  /** The kept start of the line whose end has not arrived yet, copied out of its chunks: at most the bound. */
  private pieces: Buffer[] = [];
  private kept = 0;
  /** The bytes of that line past the bound: counted, not kept. */
  private dropped = 0;
  /** The line's last byte so far, to leave a `\r` before the newline out of the count. */
  private last = -1;
  private ended = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly limit = LINE_LIMIT_BYTES,
  ) {}

  /** Splits one chunk; calls `onLine` for every line the chunk completes, in order. */
  push(chunk: Buffer): void {
    if (this.ended) return;
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline !== -1) {
      if (this.kept === 0 && this.dropped === 0 && newline - start <= this.limit) {
        // The common case: a whole line inside one chunk, decoded in place.
        this.onLine(decodeLine(chunk, start, newline));
      } else {
        this.hold(chunk, start, newline);
        this.deliver();
      }
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    this.hold(chunk, start, chunk.length);
  }

  /**
   * Ends the stream: delivers the partial last line (text after the last newline), if any.
   * Idempotent; chunks pushed after it are ignored.
   */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.kept > 0 || this.dropped > 0) this.deliver();
  }

  /** Keeps what fits of `chunk[start, end)` under the bound (a copy: the chunk is not held) and counts the rest. */
  private hold(chunk: Buffer, start: number, end: number): void {
    if (start === end) return;
    const take = Math.min(end - start, this.limit - this.kept);
    if (take > 0) {
      this.pieces.push(Buffer.from(chunk.subarray(start, start + take)));
      this.kept += take;
    }
    this.dropped += end - start - take;
    this.last = chunk[end - 1] ?? -1;
  }

  private deliver(): void {
    const bytes = this.pieces.length === 1 ? (this.pieces[0] as Buffer) : Buffer.concat(this.pieces, this.kept);
    const dropped = this.dropped;
    const last = this.last;
    this.pieces = [];
    this.kept = 0;
    this.dropped = 0;
    this.last = -1;
    if (dropped === 0) {
      this.onLine(decodeLine(bytes, 0, bytes.length));
      return;
    }
    const keep = characterStart(bytes, this.limit - MARKER_ROOM);
    const counted = dropped + bytes.length - keep - (last === CARRIAGE_RETURN ? 1 : 0);
    this.onLine(bytes.toString('utf8', 0, keep) + cutLineMarker(counted));
  }
}

/** Decodes `bytes[start, end)` as one line, without the `\r` of a `\r\n`. */
function decodeLine(bytes: Buffer, start: number, end: number): string {
  return bytes.toString('utf8', start, end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end);
}

/**
 * The last character boundary at or before `at` in UTF-8 `bytes`: a cut there leaves no character in
 * pieces. A continuation byte (10xxxxxx) is never a character's first.
 */
function characterStart(bytes: Buffer, at: number): number {
  let start = Math.max(0, Math.min(at, bytes.length));
  while (start > 0 && start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
  return start;
}
