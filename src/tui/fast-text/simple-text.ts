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
const SIMPLE_RANGES: readonly (readonly [number, number])[] = [
  [0x0020, 0x007e],
  [0x00a0, 0x00ac],
  [0x00ae, 0x02ff],
  [0x0370, 0x0482],
  [0x2010, 0x2027],
  [0x2030, 0x205e],
  [0x2070, 0x20cf],
  [0x2100, 0x2319],
  [0x232b, 0x23e8],
  [0x23f4, 0x25fc],
  [0x25ff, 0x2613],
  [0x2694, 0x26a0],
];

const unicodeEscape = (point: number) => `\\u${point.toString(16).padStart(4, '0')}`;
const SIMPLE_CHARACTERS = SIMPLE_RANGES.map(([from, to]) => `${unicodeEscape(from)}-${unicodeEscape(to)}`).join('');

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
  return SIMPLE_RANGES.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, index) => from + index));
}
