/** Reading and writing words of a POSIX shell command line. Pure. */

/** Quotes one word for a POSIX shell: `it's` → `'it'\''s'`. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** Writes one word for a shell command line: as is when it is plainly safe, quoted otherwise. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : shellQuote(word);
}

/**
 * Reads the words of one simple command as a POSIX shell splits them: at unquoted blanks, with
 * quotes removed and backslash escapes applied (inside double quotes only before `$`, `` ` ``, `"`,
 * `\` and a newline). Expansions are kept as written. An unterminated quote runs to the end.
 */
export function readWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char === ' ' || char === '\t' || char === '\n') {
      if (started) words.push(word);
      word = '';
      started = false;
      continue;
    }
    started = true;
    if (char === "'") {
      const end = text.indexOf("'", index + 1);
      const stop = end < 0 ? text.length : end;
      word += text.slice(index + 1, stop);
      index = stop;
    } else if (char === '"') {
      for (index += 1; index < text.length && text[index] !== '"'; index++) {
        const escapes = text[index] === '\\' ? text[index + 1] : undefined;
        if (escapes === '\n') index += 1;
        else if (escapes !== undefined && '$`"\\'.includes(escapes)) word += text[++index];
        else word += text[index];
      }
    } else if (char === '\\') {
      // A backslash before a newline joins the lines; before anything else it quotes it.
      const next = text[++index];
      if (next !== '\n') word += next ?? '';
    } else {
      word += char;
    }
  }
  if (started) words.push(word);
  return words;
}
