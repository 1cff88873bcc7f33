/** Writing words for a POSIX shell command line. Pure. */

/** Quotes one word for a POSIX shell: `it's` → `'it'\''s'`. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** Writes one word for a shell command line: as is when it is plainly safe, quoted otherwise. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : shellQuote(word);
}
