/**
 * `ByteTail` keeps the last `limit` bytes written to it (e.g. a child's stderr, for classifying how
 * it ended) and returns them as text. One writer; memory stays bounded by `limit` whatever the
 * stream's length.
 */
export class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  /** Appends a chunk, dropping the oldest bytes beyond the limit. */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit * 2) this.compact();
  }

  /**
   * Returns the last `limit` bytes as UTF-8 text. A character cut by the limit's edge is dropped
   * rather than shown as a replacement character.
   */
  text(): string {
    this.compact();
    const bytes = this.chunks[0] ?? Buffer.alloc(0);
    let start = 0;
    // Skip UTF-8 continuation bytes (10xxxxxx): they belong to a character whose first byte was cut.
    while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    return bytes.subarray(start).toString('utf8');
  }

  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const kept = all.length > this.limit ? all.subarray(all.length - this.limit) : all;
    this.chunks = kept.length > 0 ? [kept] : [];
    this.size = kept.length;
  }
}
