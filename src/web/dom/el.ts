/**
 * Building DOM without innerHTML: `el('td', { class: 'state' }, text)` — attributes set as
 * attributes, children as nodes, strings as text nodes — so nothing from the API is ever parsed as
 * HTML. Plus the small formatters every screen shares (../format.ts, DOM-free), re-exported.
 */
export { formatBytes, formatDisk, formatDuration, formatTime, formatTokens, formatUsd } from '../format.js';

export type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string | undefined>> = {},
  ...children: readonly Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) element.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/** The element with `id`; throws when the page lacks it (a page and its module out of step). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found as T;
}
