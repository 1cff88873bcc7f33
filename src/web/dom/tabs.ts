/**
 * The detail page's tabs, as the ARIA tabs pattern: one tab selected (`aria-selected`, in the tab
 * order; the others `tabindex=-1`), its panel shown, Left/Right/Home/End moving between tabs when
 * the tab list has focus; `select` for the `1`–`4` keys. The selected tab is the URL's hash
 * (`#events`): selecting another tab pushes a history entry, and the tabs follow the hash
 * (`followHash`), so Back and Forward move between the tabs seen, and a reload, a shared link or a
 * link to `#changes` opens that tab.
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

  /**
   * Selects the tab the URL's hash names (the first tab when it names none), in place of the page's
   * history entry; from then on, selects the tab each change of the hash names (Back, Forward, a
   * link), without a new entry.
   */
  followHash(): void {
    const first = idOf(this.#tabs[0] as HTMLButtonElement);
    const named = (): string | undefined => {
      const id = location.hash.slice(1);
      return id === '' ? first : this.#has(id) ? id : undefined;
    };
    this.#show(named() ?? first);
    history.replaceState(null, '', `#${this.#current}`);
    addEventListener('hashchange', () => {
      const id = named();
      if (id !== undefined && id !== this.#current) this.#show(id);
    });
  }

  /** Selects tab `id` (focusing it when `focus`) and, when it is another than the one shown, pushes its hash. */
  select(id: string, focus = false): void {
    if (!this.#has(id)) return;
    const moved = id !== this.#current;
    this.#show(id, focus);
    if (moved) history.pushState(null, '', `#${id}`);
  }

  #has(id: string): boolean {
    return this.#tabs.some((tab) => idOf(tab) === id);
  }

  #show(id: string, focus = false): void {
    this.#current = id;
    for (const tab of this.#tabs) {
      const selected = idOf(tab) === id;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      const panel = document.getElementById(tab.getAttribute('aria-controls') ?? '');
      if (panel !== null) panel.hidden = !selected;
      if (selected && focus) tab.focus();
    }
    this.#onSelect(id);
  }
}

function idOf(tab: HTMLElement): string {
  return tab.id.replace(/^tab-/, '');
}
