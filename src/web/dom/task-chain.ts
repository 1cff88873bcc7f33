/**
 * The New task form's harness chain (`#task-chain`, an ordered list): one row per link — the primary
 * harness first, then the fallbacks — each a labelled harness select (`#task-chain-N`, the names in
 * the list's `data-harnesses`; a name the YAML gave that is not one is kept as an option, for its
 * problem to show beside it), a model input, "Move up" and "Remove" buttons, and its problem slot
 * (`#task-chain-N-problem`). `#task-chain-add` adds a fallback. The rows' own `input` events bubble to
 * the form; a button's change of the rows calls `onChange`. The form owns it for the page's life.
 */
import type { LinkValues } from '../task-form.js';
import { byId, el } from './el.js';

export class ChainRows {
  readonly #list = byId<HTMLOListElement>('task-chain');
  readonly #harnesses = (this.#list.dataset.harnesses ?? '').split(' ');
  readonly #onChange: () => void;

  constructor(onChange: () => void) {
    this.#onChange = onChange;
    byId('task-chain-add').addEventListener('click', () => {
      const links = this.values;
      const unused = this.#harnesses.find((name) => !links.some((link) => link.harness === name));
      this.#change([...links, { harness: unused ?? this.#harnesses[0] ?? '', model: '' }], links.length);
    });
  }

  /** The links the rows hold, in order. */
  get values(): LinkValues[] {
    return [...this.#list.children].map((_, index) => ({
      harness: byId<HTMLSelectElement>(`task-chain-${index}`).value,
      model: byId<HTMLInputElement>(`task-chain-${index}-model`).value,
    }));
  }

  /** Shows `links`, one row each. */
  set values(links: readonly LinkValues[]) {
    this.#list.replaceChildren(...links.map((link, index) => this.#row(link, index, links.length)));
  }

  /** Shows `links`, puts the focus on row `focus`'s harness (or the add button), and says the chain changed. */
  #change(links: readonly LinkValues[], focus: number): void {
    this.values = links;
    (document.getElementById(`task-chain-${focus}`) ?? byId('task-chain-add')).focus();
    this.#onChange();
  }

  #row(link: LinkValues, index: number, count: number): HTMLLIElement {
    const id = `task-chain-${index}`;
    const title = index === 0 ? 'Primary harness' : `Fallback ${index}`;
    const names = this.#harnesses.includes(link.harness) ? this.#harnesses : [...this.#harnesses, link.harness];
    const select = el(
      'select',
      { id, 'aria-describedby': `${id}-problem` },
      ...names.map((name) => el('option', { value: name }, name)),
    );
    select.value = link.harness;
    const model = el('input', {
      id: `${id}-model`,
      placeholder: "the harness's default",
      autocomplete: 'off',
      'aria-describedby': `${id}-problem`,
    });
    model.value = link.model;
    const button = (label: string, text: string, act: () => void) => {
      const element = el('button', { type: 'button', 'aria-label': label }, text);
      element.addEventListener('click', act);
      return element;
    };
    const links = () => this.values;
    return el(
      'li',
      {},
      el(
        'div',
        { class: 'link' },
        el('label', { for: id }, title),
        select,
        el('label', { for: `${id}-model` }, 'model'),
        model,
        index > 0 &&
          button(`Move ${title.toLowerCase()} up`, 'Move up', () => {
            const moved = links();
            [moved[index - 1], moved[index]] = [moved[index] as LinkValues, moved[index - 1] as LinkValues];
            this.#change(moved, index - 1);
          }),
        count > 1 &&
          button(`Remove ${title.toLowerCase()}`, 'Remove', () =>
            this.#change(
              links().filter((_, at) => at !== index),
              Math.max(0, index - 1),
            ),
          ),
      ),
      el('p', { class: 'problem', id: `${id}-problem` }),
    );
  }
}
