/**
 * Scrolling a text in the terminal UI (an execution's tabs, an opened record, the `?` help), pure:
 * a position is a line index to show at the top, or `'end'` — the bottom, which stays the bottom as
 * lines arrive. Scrolling down onto the bottom becomes `'end'`, so a text followed by `G` or by
 * scrolling to its last line keeps following.
 */
import type { Action } from '../web/keys/keymap.js';

/** A line index to show at the top, or `'end'`: the bottom, following what arrives. */
export type Scroll = number | 'end';

/** The first line shown of a text `lines` long in `height` lines, at `scroll`. */
export function topLine(scroll: Scroll, lines: number, height: number): number {
  const bottom = Math.max(0, lines - height);
  return scroll === 'end' ? bottom : Math.min(Math.max(scroll, 0), bottom);
}

/** The position after a `scroll:*` action (SCROLL_KEYS) in a text `lines` long shown `height` lines at a time. */
export function scrolled(action: Action, scroll: Scroll, lines: number, height: number): Scroll {
  const bottom = Math.max(0, lines - height);
  const top = topLine(scroll, lines, height);
  const page = Math.max(1, height - 1);
  const moved: Partial<Record<Action, Scroll>> = {
    'scroll:down': top + 1,
    'scroll:up': top - 1,
    'scroll:page-down': top + page,
    'scroll:page-up': top - page,
    'scroll:top': 0,
    'scroll:bottom': 'end',
  };
  const next = moved[action] ?? scroll;
  return next === 'end' || next >= bottom ? 'end' : Math.max(0, next);
}
