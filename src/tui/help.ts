/**
 * The `?` help of the terminal UI as lines of text, built by the Workbench's `helpSections` from the
 * same keymaps that dispatch the keys, so the help shows the Workbench's descriptions word for word
 * and cannot disagree with what the keys do. Pure.
 */
import { helpSections } from '../web/keys/dispatch.js';
import type { Keymap } from '../web/keys/keymap.js';

/** A titled keymap, as `helpSections` takes it and in the order dispatch consults it. */
export interface Scope {
  readonly title: string;
  readonly keymap: Keymap;
}

/** One line per section title and per binding (`  j / ↓      Next row`), a blank line between sections. */
export function helpLines(scopes: readonly Scope[]): string[] {
  const sections = helpSections(scopes);
  const keysWidth = Math.max(0, ...sections.flatMap((section) => section.rows.map((row) => row.keys.length)));
  return sections.flatMap((section, index) => [
    ...(index > 0 ? [''] : []),
    section.title,
    ...section.rows.map((row) => `  ${row.keys.padEnd(keysWidth)}  ${row.description}`),
  ]);
}

/** The help's lines that fit in a terminal `height` lines high, besides its title. */
export function helpHeight(height: number): number {
  return Math.max(1, height - 1);
}
