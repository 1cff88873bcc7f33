/**
 * The detail view's unit of text: a `Line` — one terminal row of plain text and how it is toned —
 * and the helpers every tab's renderer (summary-lines.ts, event-lines.ts, transcript-lines.ts,
 * changes-lines.ts) builds lines with. Pure. The view owns colors (a tone names a role, not a
 * color) and scrolling; the renderers own that no line is wider than the width they were given.
 *
 * Text from the service — a harness's output, a message, a diff — is shown, never obeyed: `clean`
 * drops terminal control sequences (CSI, OSC and the other escape strings, 7- and 8-bit) and every
 * control character but newline and tab, so nothing it holds can move the cursor, retitle the
 * terminal or hide what follows. Widths count code points: a wide character (CJK, most emoji)
 * takes two columns, which the view's own truncation catches.
 */

/** `warn`: what HarmFlow did not see although it was reported, or a warning the workspace gave. */
export type Tone = 'heading' | 'muted' | 'add' | 'del' | 'switch' | 'user' | 'assistant' | 'error' | 'ok' | 'warn';

export interface Line {
  readonly text: string;
  readonly tone?: Tone;
}

/** Columns between tab stops: narrower than a terminal's 8, as the detail view is often narrow. */
const TAB_WIDTH = 4;

const ESC = 0x1b;
const BEL = 0x07;
const NEWLINE = 0x0a;
const TAB = 0x09;
/** 8-bit CSI, and the 8-bit openers of strings ended by ST: DCS, SOS, OSC, PM, APC. */
const CSI_8BIT = 0x9b;
const STRING_OPENERS_8BIT: ReadonlySet<number> = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
const ST_8BIT = 0x9c;
/** After ESC: the introducers of strings ended by ST — DCS `P`, SOS `X`, OSC `]`, PM `^`, APC `_`. */
const STRING_INTRODUCERS = new Set(['P', 'X', ']', '^', '_']);

/** `text` without terminal control sequences and control characters; newlines and tabs are kept. */
export function clean(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === ESC) index = afterEscape(text, index + 1);
    else if (code === CSI_8BIT) index = afterCsi(text, index + 1);
    else if (STRING_OPENERS_8BIT.has(code)) index = afterString(text, index + 1);
    else {
      if (!isControl(code) || code === NEWLINE || code === TAB) out += text[index];
      index += 1;
    }
  }
  return out;
}

/** C0 controls, DEL and C1 controls. */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** The index after an escape sequence whose ESC came just before `index`. */
function afterEscape(text: string, index: number): number {
  const next = text[index];
  if (next === undefined) return index;
  if (next === '[') return afterCsi(text, index + 1);
  if (STRING_INTRODUCERS.has(next)) return afterString(text, index + 1);
  let at = index;
  // nF sequences (`ESC ( B`): intermediate bytes, then one final byte.
  while (at < text.length && text.charCodeAt(at) >= 0x20 && text.charCodeAt(at) <= 0x2f) at += 1;
  const final = text.charCodeAt(at);
  return final >= 0x30 && final <= 0x7e ? at + 1 : at;
}

/** The index after a CSI's parameter, intermediate and final bytes, its introducer just before `index`. */
function afterCsi(text: string, index: number): number {
  let at = index;
  while (at < text.length && text.charCodeAt(at) >= 0x20 && text.charCodeAt(at) <= 0x3f) at += 1;
  const final = text.charCodeAt(at);
  return final >= 0x40 && final <= 0x7e ? at + 1 : at;
}

/**
 * The index after a control string (an OSC's title, a DCS…) and its terminator (BEL, ESC `\` or
 * 8-bit ST). An unterminated one ends at the line's end, so it cannot swallow the rest of the text.
 */
function afterString(text: string, index: number): number {
  let at = index;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === BEL || code === ST_8BIT) return at + 1;
    if (code === ESC) return text[at + 1] === '\\' ? at + 2 : at + 1;
    if (code === NEWLINE) return at;
    at += 1;
  }
  return at;
}

/** One line (no newline in it) with each tab widened to the next stop of TAB_WIDTH columns. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  let column = 0;
  for (const char of line) {
    if (char === '\t') {
      const spaces = TAB_WIDTH - (column % TAB_WIDTH);
      out += ' '.repeat(spaces);
      column += spaces;
    } else {
      out += char;
      column += 1;
    }
  }
  return out;
}

/** Columns `text` takes, counted in code points. */
export function textWidth(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** `text` cut to `width` columns, its last one `…` when cut; a newline-free line is expected. */
export function truncate(text: string, width: number): string {
  const room = Math.max(1, Math.floor(width));
  const chars = Array.from(text);
  return chars.length <= room ? text : `${chars.slice(0, room - 1).join('')}…`;
}

/** One line of text as the view can show it: cleaned, newline-free, tabs expanded, cut to `width`. */
export function fitLine(text: string, width: number): string {
  return truncate(expandTabs(clean(text).replace(/\n/g, ' ')), width);
}

/**
 * `text` as rows of at most `width` columns: split at its newlines, cleaned (see `clean`), tabs
 * expanded, each line broken at the last space that fits — the space dropped — or, for a word
 * longer than the width, in the word. A width under 1 counts as 1; an empty text is one empty row.
 */
export function wrapText(text: string, width: number): string[] {
  const room = Math.max(1, Math.floor(width));
  const rows: string[] = [];
  for (const line of clean(text).split('\n')) rows.push(...wrapLine(Array.from(expandTabs(line)), room));
  return rows;
}

function wrapLine(chars: readonly string[], width: number): string[] {
  const rows: string[] = [];
  let rest = chars;
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    const piece = space > 0 ? rest.slice(0, space).join('').trimEnd() : '';
    if (piece === '') {
      rows.push(rest.slice(0, width).join(''));
      rest = rest.slice(width);
    } else {
      rows.push(piece);
      rest = rest.slice(space + 1);
    }
  }
  rows.push(rest.join(''));
  return rows;
}

/** `indent` no wider than `width` leaves room for one column of text. */
function fittingIndent(indent: string, width: number): string {
  return Array.from(indent)
    .slice(0, Math.max(0, Math.floor(width) - 1))
    .join('');
}

/** Lines of `text` wrapped to `width`, each starting with `indent` (counted in the width) and toned `tone`. */
export function paragraph(text: string, width: number, tone?: Tone, indent = ''): Line[] {
  const lead = fittingIndent(indent, width);
  return wrapText(text, width - textWidth(lead)).map((row) => toned(lead + row, tone));
}

/**
 * Lines of `text` wrapped to `width` after `lead` (`Task        `, `  - `): the first line starts
 * with `lead`, the others with as many spaces, so the text stays in one column.
 */
export function hanging(lead: string, text: string, width: number, tone?: Tone): Line[] {
  const first = fittingIndent(lead, width);
  const other = ' '.repeat(textWidth(first));
  return wrapText(text, width - textWidth(first)).map((row, index) => toned((index === 0 ? first : other) + row, tone));
}

/** A line with `tone` when there is one (exactOptionalPropertyTypes: no `tone: undefined`). */
export function toned(text: string, tone: Tone | undefined): Line {
  return tone === undefined ? { text } : { text, tone };
}

/** The empty line between a tab's entries. */
export const BLANK: Line = { text: '' };
