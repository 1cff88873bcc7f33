/**
 * The terminal UI bundle's fast paths over string-width and @alcalzone/ansi-tokenize
 * (src/tui/fast-text/) return what the packages return: every character they treat as simple is
 * checked against the packages and Intl.Segmenter, and generated lines — simple characters, others
 * (wide, combining, emoji, soft hyphen), SGR sequences of every kind Ink writes and broken ones —
 * give the same widths, tokens and strings.
 */
import {
  styledCharsFromTokens as packageStyledChars,
  tokenize as packageTokenize,
  styledCharsToString as packageToString,
  type StyledChar,
} from '@alcalzone/ansi-tokenize';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { styledCharsFromTokens, styledCharsToString, tokenize } from '../../src/tui/fast-text/ansi-tokenize.js';
import { SIMPLE_STYLED_TEXT, SIMPLE_TEXT, simpleCodePoints } from '../../src/tui/fast-text/simple-text.js';
import fastStringWidth from '../../src/tui/fast-text/string-width.js';
import { seededRandom } from '../seeded-random.js';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemeCount = (text: string) => [...graphemes.segment(text)].length;

describe('simple characters', () => {
  const points = simpleCodePoints();

  it('cover the characters the terminal UI draws with', () => {
    expect(points.length).toBeGreaterThan(2_000);
    for (const character of ['a', ' ', '—', '·', '…', '›', '–', '→', '↑', '↓', '←', '×', '▏', '●', '−', '⚠', 'é']) {
      expect(SIMPLE_TEXT.test(character), character).toBe(true);
    }
  });

  it('are each one column wide, one token and a grapheme of their own', () => {
    const wrong: string[] = [];
    for (const point of points) {
      const character = String.fromCodePoint(point);
      const tokens = packageTokenize(character);
      const simple =
        stringWidth(character) === 1 &&
        stringWidth(`a${character}b`) === 3 &&
        tokens.length === 1 &&
        tokens[0]?.type === 'char' &&
        !tokens[0].fullWidth &&
        graphemeCount(`a${character}b`) === 3 &&
        graphemeCount(`${character}${character}`) === 2;
      if (!simple) wrong.push(`U+${point.toString(16).toUpperCase()}`);
    }
    expect(wrong).toEqual([]);
  });

  it('exclude what is not', () => {
    for (const text of ['漢', '👍', 'e\u0301', '\u00AD', '\t', '\u001B', '\u200D', '\uFE0F', '⌚']) {
      expect(SIMPLE_TEXT.test(text), JSON.stringify(text)).toBe(false);
    }
    expect(SIMPLE_STYLED_TEXT.test('\u001B[31mred\u001B[39m')).toBe(true);
    expect(SIMPLE_STYLED_TEXT.test('\u001B[31')).toBe(false);
    expect(SIMPLE_STYLED_TEXT.test('\u001B]8;;https://x\u0007link\u001B]8;;\u0007')).toBe(false);
  });
});

const SIMPLE_PIECES = ['a', 'Z', '0', ' ', '—', '·', '…', '›', '–', '→', '▏', '●', '⚠', 'é', 'ß', 'Ω', 'ж', '│'];
const OTHER_PIECES = ['漢', '👍', '👍🏽', 'e\u0301', '\u00AD', '🇫🇷', '⌚', '☀\uFE0F', 'ｱ', '\u0007'];
const SEQUENCES = [
  '\u001B[31m',
  '\u001B[39m',
  '\u001B[1m',
  '\u001B[2m',
  '\u001B[22m',
  '\u001B[1;31m',
  '\u001B[38;5;202m',
  '\u001B[48;5;17m',
  '\u001B[38;2;10;20;30m',
  '\u001B[49m',
  '\u001B[7m',
  '\u001B[27m',
  '\u001B[4m',
  '\u001B[24m',
  '\u001B[0m',
  '\u001B[m',
  '\u001B[90m',
];
const BROKEN = [
  '\u001B[31',
  '\u001B[',
  '\u001B',
  '\u001B[12345m',
  '\u001B[;31m',
  '\u001B[1:2m',
  '\u001B[?25l',
  '\u001B]8;;https://example.com\u0007',
  '\u001B]8;;\u0007',
];

/** A line of `length` pieces: simple characters and sequences, and now and then another piece. */
function line(random: () => number, length: number, others: boolean): string {
  const pick = (items: readonly string[]) => items[Math.floor(random() * items.length)] as string;
  let text = '';
  for (let piece = 0; piece < length; piece += 1) {
    const roll = random();
    if (roll < 0.2) text += pick(SEQUENCES);
    else if (others && roll < 0.26) text += pick(OTHER_PIECES);
    else if (others && roll < 0.28) text += pick(BROKEN);
    else text += pick(SIMPLE_PIECES);
  }
  return text;
}

describe('the fast paths', () => {
  const random = seededRandom(24);
  const lines = Array.from({ length: 1_500 }, (_, index) => line(random, 1 + (index % 90), index % 3 === 0));

  it('measure as string-width does', () => {
    for (const text of [...lines, '', 'plain']) {
      expect(fastStringWidth(text), JSON.stringify(text)).toBe(stringWidth(text));
      expect(fastStringWidth(text, { ambiguousIsNarrow: false })).toBe(stringWidth(text, { ambiguousIsNarrow: false }));
    }
  });

  it('tokenize, style and print as ansi-tokenize does', () => {
    let fast = 0;
    for (const text of lines) {
      if (SIMPLE_STYLED_TEXT.test(text)) fast += 1;
      expect(tokenize(text), JSON.stringify(text)).toEqual(packageTokenize(text));
      const endChar = Math.floor(random() * 40);
      expect(tokenize(text, endChar)).toEqual(packageTokenize(text, endChar));
      const chars = styledCharsFromTokens(tokenize(text));
      expect(chars).toEqual(packageStyledChars(packageTokenize(text)));
      expect(styledCharsToString(chars)).toBe(packageToString(packageStyledChars(packageTokenize(text))));
    }
    expect(fast).toBeGreaterThan(lines.length / 2);
  });

  it('print a row made of several lines and blank cells as ansi-tokenize does', () => {
    for (let row = 0; row < 500; row += 1) {
      const cells: StyledChar[] = [];
      for (let part = 0; part < 1 + (row % 5); part += 1) {
        const blanks = Math.floor(random() * 4);
        for (let blank = 0; blank < blanks; blank += 1)
          cells.push({ type: 'char', value: ' ', fullWidth: false, styles: [] });
        cells.push(...styledCharsFromTokens(tokenize(lines[(row * 7 + part) % lines.length] as string)));
      }
      expect(styledCharsToString(cells)).toBe(packageToString(cells));
    }
  });
});
