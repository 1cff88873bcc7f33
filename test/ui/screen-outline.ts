/**
 * A screen's outline, what test/ui/screenshots.ts holds a committed screenshot to: one line for
 * each kind of element shown under a root — `parent > element`, each as its tag, id, classes, role
 * and labelling attributes — and, for the elements that are the screen's own words (headings, column
 * heads, buttons, tabs, labels, terms), their text; sorted, each line once. What varies from run to
 * run is left out: any word with a digit in it (times, ids, counts, durations) reads `#`; what is
 * inside a container of data — a table's body, a listbox (the Events timeline), the transcript, a
 * `pre` (a diff) — is not outlined, only the container, for how far a live execution got when the
 * screenshot was taken is not the screen; and each line is kept once, so how many of a kind there are
 * does not count. So a new column, button, tab, heading or section changes it; a rerun does not.
 */
import type { Locator } from 'playwright-core';

/** Runs in the page (the tests compile without the DOM types, so it is sent as source). */
const OUTLINE = `(root) => {
  const WORDS = 'h1,h2,h3,h4,h5,h6,th,button,label,legend,caption,dt,summary,[role="tab"]';
  const DATA = 'tbody,[role="listbox"],.transcript,pre';
  const mask = (text) => text.replace(/\\s+/g, ' ').trim().replace(/\\S*\\d\\S*/g, '#');
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const contents = (el) => getComputedStyle(el).display === 'contents';
  const name = (el) => {
    let text = el.tagName.toLowerCase();
    if (el.id) text += '#' + mask(el.id);
    for (const each of [...el.classList].sort()) text += '.' + each;
    for (const key of ['role', 'aria-label', 'placeholder', 'title', 'type']) {
      const value = el.getAttribute(key);
      if (value) text += '[' + key + '=' + mask(value) + ']';
    }
    return text;
  };
  const lines = new Set();
  const walk = (el, parent) => {
    if (!shown(el) && !contents(el)) return;
    const me = name(el);
    const words = el.matches(WORDS) ? ' "' + mask(el.textContent || '') + '"' : '';
    lines.add(parent + ' > ' + me + words);
    if (!el.matches(DATA)) for (const child of el.children) walk(child, me);
  };
  walk(root, '');
  return [...lines].sort().join('\\n');
}`;

/** The outline of what `root` shows. */
export async function screenOutline(root: Locator): Promise<string> {
  return root.evaluate(new Function(`return ${OUTLINE}`)() as (root: unknown) => string);
}
