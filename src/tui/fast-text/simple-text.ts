/**
 * The text the terminal UI's fast paths (string-width.ts, ansi-tokenize.ts) measure and split
 * themselves: characters each one column wide and each a grapheme of its own beside any other such
 * character — printable ASCII and Latin-1, the Latin, Greek and Cyrillic letters, general
 * punctuation (— … › ·), super- and subscripts, currency, letterlike and mathematical signs, arrows,
 * technical signs, box drawing, blocks and geometric shapes (▏ ●) and ⚠ with the signs before it.
 * For a string of them, its width is its length and its graphemes are its UTF-16 units.
 * test/tui/fast-text.test.ts checks every code point of the class against string-width, Ink's
 * tokenizer and Intl.Segmenter, so a range that is not simple fails there.
 */
const SIMPLE_CHARACTERS =
  '\\u0020-\\u007E\\u00A0-\\u00AC\\u00AE-\\u02FF\\u0370-\\u0482\\u2010-\\u2027\\u2030-\\u205E' +
  '\\u2070-\\u20CF\\u2100-\\u2319\\u232B-\\u23E8\\u23F4-\\u25FC\\u25FF-\\u2613\\u2694-\\u26A0';

/** A string of simple characters only (the empty one included). */
export const SIMPLE_TEXT = new RegExp(`^[${SIMPLE_CHARACTERS}]*$`);

/**
 * An SGR sequence as Ink writes one (`ESC [`, numbers of at most three digits between semicolons,
 * `m`): ansi-tokenize and string-width's ANSI stripping both read it as one sequence.
 */
const SGR = '\\u001B\\[(?:[0-9]{1,3}(?:;[0-9]{1,3})*)?m';

/** Every SGR sequence in a string. */
export const SGR_SEQUENCES = new RegExp(SGR, 'g');

/** Simple characters and SGR sequences: the colours Ink writes. */
export const SIMPLE_STYLED_TEXT = new RegExp(`^(?:[${SIMPLE_CHARACTERS}]|${SGR})*$`);

/** Every simple character's code point, for the test that checks them. */
export function simpleCodePoints(): number[] {
  const points: number[] = [];
  for (const [, from, to] of SIMPLE_CHARACTERS.matchAll(/\\u([0-9A-F]{4})-\\u([0-9A-F]{4})/g)) {
    for (let point = Number.parseInt(from ?? '', 16); point <= Number.parseInt(to ?? '', 16); point += 1) {
      points.push(point);
    }
  }
  return points;
}
