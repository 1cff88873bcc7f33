/**
 * The keyboard glue: one `keydown` listener per page turns presses into actions through the keymaps
 * (keys/dispatch.ts) of the scopes the page says are active now, and runs the page's handler for
 * the action. Help (`?`, and the Shortcuts button) and Escape's first duties — close the overlay,
 * leave a field — are handled here for every page; what else an action does is the page's.
 */
import { dispatch, helpSections } from '../keys/dispatch.js';
import type { Action, Keymap } from '../keys/keymap.js';
import { byId, el } from './el.js';

export interface Scope {
  readonly title: string;
  readonly keymap: Keymap;
}

export type Handlers = Partial<Record<Action, () => void>>;

/** Listens for keys: `scopes()` says which scopes hold now, most specific first. */
export function installKeys(scopes: () => readonly Scope[], handlers: Handlers): void {
  const help = byId<HTMLDialogElement>('help-dialog');
  const openHelp = () => {
    byId('help-body').replaceChildren(...helpSections(scopes()).map(helpTable));
    help.showModal();
  };
  byId('help-button').addEventListener('click', openHelp);

  document.addEventListener('keydown', (event) => {
    // Another open dialog (the token prompt, a confirmation) keeps its keys: Escape closes it, nothing more.
    const dialog = document.querySelector('dialog[open]');
    if (event.isComposing || (dialog !== null && dialog !== help)) return;
    const target = event.target as HTMLElement | null;
    const inEditable =
      target !== null && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
    const action = dispatch(
      scopes().map((scope) => scope.keymap),
      { key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, altKey: event.altKey, inEditable },
    );
    if (action === undefined) return;
    if (action === 'help:toggle') {
      event.preventDefault();
      if (help.open) help.close();
      else openHelp();
      return;
    }
    if (action === 'back') {
      // A dialog closes itself on Escape; a field is left before anything else happens.
      if (help.open) return;
      if (inEditable) {
        target?.blur();
        event.preventDefault();
        return;
      }
    }
    const handler = handlers[action];
    if (handler === undefined) return;
    event.preventDefault();
    handler();
  });
}

function helpTable(section: { title: string; rows: readonly { keys: string; description: string }[] }): HTMLElement {
  return el(
    'section',
    {},
    el('h3', {}, section.title),
    el(
      'table',
      {},
      el(
        'tbody',
        {},
        ...section.rows.map((row) =>
          el('tr', {}, el('td', {}, el('kbd', {}, row.keys)), el('td', {}, row.description)),
        ),
      ),
    ),
  );
}
