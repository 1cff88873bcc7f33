/**
 * Turns what Ink's `useInput` reports for one key into the `KeyPress` the shared dispatcher takes
 * (src/web/keys/dispatch.ts), so the terminal UI reads the Workbench's keymaps unchanged: named keys
 * get their `KeyboardEvent.key` names (`ArrowDown`, `Enter`, `Escape`, `Tab`, …), a printable key
 * is its character (`G` for Shift+g, as in a browser).
 *
 * Terminals cannot tell Alt from Meta: Ink reports both as `meta`, which becomes `metaKey` here
 * (`altKey` is always false). Ink also sets `meta` on a lone Escape; that is not a modifier, so it is
 * dropped there. Pure; Ink is imported for its `Key` type only.
 */
import type { Key } from 'ink';
import type { KeyPress } from '../web/keys/dispatch.js';

/** Ink's named keys, in the order they are checked, and their `KeyboardEvent.key` names. */
const NAMED_KEYS: readonly (readonly [keyof Key, string])[] = [
  ['upArrow', 'ArrowUp'],
  ['downArrow', 'ArrowDown'],
  ['leftArrow', 'ArrowLeft'],
  ['rightArrow', 'ArrowRight'],
  ['return', 'Enter'],
  ['escape', 'Escape'],
  ['tab', 'Tab'],
  ['backspace', 'Backspace'],
  ['delete', 'Delete'],
  ['pageUp', 'PageUp'],
  ['pageDown', 'PageDown'],
  ['home', 'Home'],
  ['end', 'End'],
];

/** The press `input` and `key` stand for; `inEditable` is true while the filter field takes typing. */
export function keyPressOf(input: string, key: Key, inEditable: boolean): KeyPress {
  const named = NAMED_KEYS.find(([flag]) => key[flag] === true)?.[1];
  return {
    key: named ?? input,
    ctrlKey: key.ctrl,
    metaKey: key.meta && !key.escape,
    altKey: false,
    inEditable,
  };
}

/**
 * The key presses a chunk of plain text with line breaks stands for, one per character, a line
 * break as `Enter`; undefined for anything else. A terminal hands keys typed faster than they are
 * read (or pasted, or sent by `tmux send-keys Enter j`) to Ink as one input: `abc\rj` is `a`, `b`,
 * `c`, `Enter`, `j`, and a field must not take the `\r` as text.
 */
export function splitTyped(input: string, press: KeyPress): { press: KeyPress; input: string }[] | undefined {
  const plain = !press.ctrlKey && !press.metaKey && !press.altKey && press.key === input;
  if (!plain || input.length < 2 || !/[\r\n]/.test(input)) return undefined;
  return [...input.replace(/\r\n/g, '\r')].map((character) => ({
    press: { ...press, key: character === '\r' || character === '\n' ? 'Enter' : character },
    input: character === '\r' || character === '\n' ? '' : character,
  }));
}

/**
 * `text` after `press` in a one-line field (a filter, a prompt's field): `Backspace` or `Delete`
 * removes the last character, typed text (a key or a paste, no Ctrl or Meta) is added with its line
 * breaks as spaces, and any other key leaves it as it is.
 */
export function editedText(text: string, press: KeyPress, input: string): string {
  if (press.key === 'Backspace' || press.key === 'Delete') return text.slice(0, -1);
  const typed = !press.ctrlKey && !press.metaKey && input.length > 0 && press.key === input;
  return typed ? text + input.replace(/[\r\n]+/g, ' ') : text;
}
