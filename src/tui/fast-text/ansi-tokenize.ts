/**
 * @alcalzone/ansi-tokenize — the module Ink's output (ink/build/output.js) turns every written line
 * into styled characters and back with — with fast paths that return what it returns:
 *  - `tokenize`: a line of simple characters and SGR sequences (simple-text.ts) is split by its
 *    UTF-16 units instead of by Intl.Segmenter's graphemes, each sequence's tokens taken from
 *    ansi-tokenize's own `tokenize` of it, once per sequence;
 *  - `styledCharsFromTokens`: the characters of a run of one style share that style's array
 *    (ansi-tokenize copies it for each), so
 *  - `styledCharsToString` skips comparing two characters' styles when they are the same array, or
 *    both empty: their difference is no code at all.
 * A styled character's `styles` array is therefore shared and must not be changed; neither Ink nor
 * ansi-tokenize changes one (reducing, diffing and undoing codes make new arrays).
 *
 * The terminal UI's bundle puts this module where Ink imports the package (scripts/bundle.mjs):
 * ansi-tokenize's own functions, one grapheme and one copied array per character, took two thirds of
 * drawing the UI's first frame (bench/ui-first-frame.mjs, BENCHMARKS.md).
 * test/tui/fast-text.test.ts compares each function with the package's on generated lines.
 */
import {
  type AnsiCode,
  ansiCodesToString,
  diffAnsiCodes,
  tokenize as packageTokenize,
  reduceAnsiCodesIncremental,
  type StyledChar,
  type Token,
} from '@alcalzone/ansi-tokenize';
import { SIMPLE_STYLED_TEXT } from './simple-text.js';

export * from '@alcalzone/ansi-tokenize';

const ESCAPE = 0x1b;

/** Each SGR sequence's tokens, as the package's `tokenize` makes them (compound codes split). */
const sequenceTokens = new Map<string, readonly Token[]>();

export function tokenize(text: string, endChar = Number.POSITIVE_INFINITY): Token[] {
  if (!SIMPLE_STYLED_TEXT.test(text)) return packageTokenize(text, endChar);
  const tokens: Token[] = [];
  let visible = 0;
  let index = 0;
  while (index < text.length) {
    if (text.charCodeAt(index) === ESCAPE) {
      const end = text.indexOf('m', index) + 1;
      tokens.push(...tokensOfSequence(text.slice(index, end)));
      index = end;
      continue;
    }
    tokens.push({ type: 'char', value: text.charAt(index), fullWidth: false });
    index += 1;
    visible += 1;
    if (visible >= endChar) break;
  }
  return tokens;
}

function tokensOfSequence(sequence: string): readonly Token[] {
  let tokens = sequenceTokens.get(sequence);
  if (tokens === undefined) {
    tokens = packageTokenize(sequence);
    sequenceTokens.set(sequence, tokens);
  }
  return tokens;
}

export function styledCharsFromTokens(tokens: Token[]): StyledChar[] {
  let styles: AnsiCode[] = [];
  const chars: StyledChar[] = [];
  for (const token of tokens) {
    if (token.type === 'ansi') styles = reduceAnsiCodesIncremental(styles, [token]);
    else chars.push({ ...token, styles });
  }
  return chars;
}

export function styledCharsToString(chars: StyledChar[]): string {
  let text = '';
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as StyledChar;
    if (index === 0) text += ansiCodesToString(char.styles);
    else text += codesBetween((chars[index - 1] as StyledChar).styles, char.styles);
    text += char.value;
    if (index === chars.length - 1) text += codesBetween(char.styles, []);
  }
  return text;
}

/** The codes that go from style `from` to style `to`: none when they are the same. */
function codesBetween(from: AnsiCode[], to: AnsiCode[]): string {
  if (from === to || (from.length === 0 && to.length === 0)) return '';
  return ansiCodesToString(diffAnsiCodes(from, to));
}
