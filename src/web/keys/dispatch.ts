/**
 * Turns one key press into at most one `Action`, given the keymaps active on the page, most specific
 * first (e.g. `[EVENTS_KEYS, GLOBAL_KEYS]`). Also builds the `?` overlay's rows from the same data,
 * so the help can never disagree with what the keys do.
 *
 * Rules of `dispatch`:
 * - a press with Ctrl, Meta or Alt is never ours: it belongs to the browser or the OS;
 * - while the focus is in an editable field, only `Escape` is handled (every other key is typing);
 * - Shift is already in `key` ('G', '?'), so it is not looked at;
 * - the first scope that binds the key wins; later scopes are not consulted.
 *
 * The DOM glue owns building `KeyPress` from a KeyboardEvent and calling preventDefault when an
 * action comes back; the terminal UI builds it from Ink's input (src/tui/key-press.ts). Pure
 * functions, shared by the browser and Node; no Node, no DOM.
 */
import type { Action, Keymap } from './keymap.js';

/** What dispatch needs from a KeyboardEvent; `inEditable` is true in an input, textarea, select or contenteditable. */
export type KeyPress = {
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  readonly inEditable: boolean;
};

/** The action the press asks for, or undefined when it is not a Workbench shortcut here. */
export function dispatch(scopes: readonly Keymap[], press: KeyPress): Action | undefined {
  if (press.ctrlKey || press.metaKey || press.altKey) return undefined;
  if (press.inEditable && press.key !== 'Escape') return undefined;
  for (const keymap of scopes) {
    const binding = keymap.find((candidate) => candidate.keys.includes(press.key));
    if (binding) return binding.action;
  }
  return undefined;
}

/** One titled group of the help overlay, and the rows it shows. */
export type HelpSection = { readonly title: string; readonly rows: readonly HelpRow[] };
export type HelpRow = { readonly keys: string; readonly description: string };

/** How a `KeyboardEvent.key` value is shown to a person; keys not listed show as themselves. */
const KEY_LABELS: Readonly<Record<string, string>> = {
  ArrowDown: '↓',
  ArrowUp: '↑',
  ArrowLeft: '←',
  ArrowRight: '→',
  Escape: 'Esc',
  ' ': 'Space',
};

/** The overlay's content: one section per scope, in the order given, one row per binding ("j / ↓"). */
export function helpSections(scopes: readonly { title: string; keymap: Keymap }[]): HelpSection[] {
  return scopes.map(({ title, keymap }) => ({
    title,
    rows: keymap.map((binding) => ({
      keys: binding.keys.map((key) => KEY_LABELS[key] ?? key).join(' / '),
      description: binding.description,
    })),
  }));
}

/**
 * The keys bound more than once in `keymap`, each named once, in order of first repeat; empty when
 * every key has one meaning. Checked by the tests rather than at load: a mistake here should fail
 * the build, not blank the Workbench in a user's browser.
 */
export function duplicateKeys(keymap: Keymap): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const key of keymap.flatMap((binding) => binding.keys)) {
    if (seen.has(key)) repeated.add(key);
    seen.add(key);
  }
  return [...repeated];
}
