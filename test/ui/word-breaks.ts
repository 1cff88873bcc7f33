/**
 * Where the Workbench breaks a label or a state inside a word: a script for `page.evaluate` (it runs
 * in the page, so it is a string of plain JavaScript) that answers one line per broken word —
 * `td "Sta/te"`. A word is broken when the rectangles of its characters lie on more than one line.
 * It looks at what names or labels something: table headers and cells, `dt`, states, tabs, labels,
 * buttons, badges and the timeline's columns (not its line about the event, which is prose), and at the label a phone row draws before each cell
 * (`td::before`, from `data-label`), which must fit on one line. Words longer than 24 characters
 * (ids, paths) are left out: where they do not fit, they have to break.
 */
export const BROKEN_WORDS = `(() => {
  const LABELS = 'th, td, dt, .state, [role="tab"], label, button, .badge, .group-head, div.timeline [role="option"] > span:not(.summary)';
  const broken = [];
  const lines = (rects) => new Set([...rects].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top))).size;
  for (const element of document.querySelectorAll(LABELS)) {
    if (element.getClientRects().length === 0) continue;
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\\S+/g)) {
        if (match[0].length > 24) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        if (lines(range.getClientRects()) > 1) broken.push(element.tagName.toLowerCase() + ' "' + match[0] + '"');
      }
    }
    const label = element.getAttribute('data-label');
    if (label === null) continue;
    const before = getComputedStyle(element, '::before');
    if (before.content === 'none' || before.display === 'none') continue;
    const height = Number.parseFloat(before.height);
    const line = Number.parseFloat(before.lineHeight) || Number.parseFloat(before.fontSize) * 1.45;
    if (height > line * 1.5) broken.push(element.tagName.toLowerCase() + '::before "' + label + '"');
  }
  return broken;
})()`;
