/**
 * Line splitting for a child's byte stream. A `LineSplitter` turns chunks into whole lines, in order:
 * it decodes UTF-8 across chunk boundaries (a character split between two chunks arrives whole),
 * joins lines split between chunks, and drops the `\r` of `\r\n`. One splitter serves one stream;
 * it is not shared between streams.
 */
import { StringDecoder } from 'node:string_decoder';

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  /** The text after the last newline: the start of a line whose end has not arrived yet. */
  private pending = '';
  private ended = false;

  constructor(private readonly onLine: (line: string) => void) {}

  /** Splits one chunk; calls `onLine` for every line the chunk completes, in order. */
  push(chunk: Buffer): void {
    if (this.ended) return;
    this.split(this.decoder.write(chunk));
  }

  /**
   * Ends the stream: delivers the partial last line (text after the last newline), if any.
   * Idempotent; chunks pushed after it are ignored.
   */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest.length > 0) this.onLine(stripCarriageReturn(rest));
  }

  private split(text: string): void {
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      // `pending` is non-empty only for the first line of a chunk; V8 joins strings as ropes, so a
      // 100 KB line arriving in 64 KiB pieces is concatenated once, not copied per piece.
      const line = this.pending + text.slice(start, newline);
      this.pending = '';
      this.onLine(stripCarriageReturn(line));
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    if (start < text.length) this.pending += text.slice(start);
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
