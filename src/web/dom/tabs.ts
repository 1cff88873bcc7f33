/**
 * The detail page's tabs, as the ARIA tabs pattern: one tab selected (`aria-selected`, in the tab
 * order; the others `tabindex=-1`), its panel shown, Left/Right/Home/End moving between tabs when
 * the tab list has focus; `select` for the `1`–`4` keys. The selected tab is kept in the URL's hash
 * (`#events`), so a reload or a shared link opens the same tab.
 */
export class Tabs {
  readonly #tabs: HTMLButtonElement[];
  readonly #onSelect: (id: string) => void;
  #current = '';

  constructor(tablist: HTMLElement, onSelect: (id: string) => void) {
    this.#tabs = [...tablist.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
    this.#onSelect = onSelect;
    for (const tab of this.#tabs) tab.addEventListener('click', () => this.select(idOf(tab)));
    tablist.addEventListener('keydown', (event) => {
      const at = this.#tabs.findIndex((tab) => idOf(tab) === this.#current);
      const to =
        event.key === 'ArrowRight'
          ? (at + 1) % this.#tabs.length
          : event.key === 'ArrowLeft'
            ? (at - 1 + this.#tabs.length) % this.#tabs.length
            : event.key === 'Home'
              ? 0
              : event.key === 'End'
                ? this.#tabs.length - 1
                : undefined;
      if (to === undefined) return;
      event.preventDefault();
      const tab = this.#tabs[to];
      if (tab !== undefined) this.select(idOf(tab), true);
    });
  }

  get current(): string {
    return this.#current;
  }

  select(id: string, focus = false): void {
    if (!this.#tabs.some((tab) => idOf(tab) === id)) return;
    this.#current = id;
    for (const tab of this.#tabs) {
      const selected = idOf(tab) === id;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      const panel = document.getElementById(tab.getAttribute('aria-controls') ?? '');
      if (panel !== null) panel.hidden = !selected;
      if (selected && focus) tab.focus();
    }
    history.replaceState(null, '', `#${id}`);
    this.#onSelect(id);
  }
}

function idOf(tab: HTMLElement): string {
  return tab.id.replace(/^tab-/, '');
}
