/**
 * string-width with a fast path: a string of simple characters (simple-text.ts) is as wide as it is
 * long, and one that also holds SGR sequences as wide as it is long without them; any other string,
 * or a call with options, goes to string-width itself. The terminal UI's
 * bundle puts this module where Ink, cli-truncate and widest-line import string-width
 * (scripts/bundle.mjs): string-width splits every string that is not plain ASCII into graphemes with
 * Intl.Segmenter, and the UI's lines carry `—`, `·` and `…`, so measuring the first screen's
 * text took a tenth of the UI's first frame (bench/ui-first-frame.mjs, BENCHMARKS.md).
 */
import stringWidth, { type Options } from 'string-width';
import { SGR_SEQUENCES, SIMPLE_STYLED_TEXT, SIMPLE_TEXT } from './simple-text.js';

export type { Options } from 'string-width';

export default function fastStringWidth(text: string, options?: Options): number {
  if (options !== undefined || typeof text !== 'string') return stringWidth(text, options);
  if (SIMPLE_TEXT.test(text)) return text.length;
  if (SIMPLE_STYLED_TEXT.test(text)) return text.replace(SGR_SEQUENCES, '').length;
  return stringWidth(text, options);
}
