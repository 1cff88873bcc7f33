import type { Handlers } from './keyboard.js';

/**
 * A table body of selectable rows, one per record, re-rendered as the data changes without losing
 * the selection (kept by record id): `j`/`k` move it, `g`/`G` jump to the ends, `Enter` or a click
 * opens the row's page. The list screens (executions.ts, history.ts) own one each.
 */
export class RowList<T extends { readonly id: string }> {
  readonly #body: HTMLTableSectionElement;
  readonly #rowOf: (record: T) => HTMLTableRowElement;
  readonly #hrefOf: (record: T) => string;
  #records: readonly T[] = [];
  #selected: string | undefined;

  constructor(body: HTMLTableSectionElement, rowOf: (record: T) => HTMLTableRowElement, hrefOf: (record: T) => string) {
    this.#body = body;
    this.#rowOf = rowOf;
    this.#hrefOf = hrefOf;
    body.addEventListener('click', (event) => {
      const row = (event.target as Element).closest('tr[data-id]');
      const record = this.#records.find((entry) => entry.id === row?.getAttribute('data-id'));
      if (record !== undefined && !(event.target as Element).closest('a')) location.assign(this.#hrefOf(record));
    });
  }

  get size(): number {
    return this.#records.length;
  }

  render(records: readonly T[], emptyText: string): void {
    this.#records = records;
    const rows = records.map((record) => {
      const row = this.#rowOf(record);
      row.dataset.id = record.id;
      row.setAttribute('aria-selected', String(record.id === this.#selected));
      return row;
    });
    if (rows.length === 0) {
      const cell = document.createElement('td');
      // Across the whole table, whatever its columns.
      cell.colSpan = this.#body.closest('table')?.tHead?.rows[0]?.cells.length ?? 1;
      cell.className = 'empty';
      cell.textContent = emptyText;
      const row = document.createElement('tr');
      row.append(cell);
      rows.push(row);
    }
    this.#body.replaceChildren(...rows);
  }

  /** Moves the selection by `delta` rows (from none: the first row, or the last for a negative step). */
  move(delta: number): void {
    if (this.#records.length === 0) return;
    const at = this.#records.findIndex((record) => record.id === this.#selected);
    const next = at === -1 ? (delta > 0 ? 0 : this.#records.length - 1) : at + delta;
    this.select(Math.min(this.#records.length - 1, Math.max(0, next)));
  }

  select(index: number): void {
    const record = this.#records[index];
    if (record === undefined) return;
    this.#selected = record.id;
    for (const row of this.#body.querySelectorAll('tr[data-id]')) {
      const selected = row.getAttribute('data-id') === record.id;
      row.setAttribute('aria-selected', String(selected));
      if (selected) row.scrollIntoView({ block: 'nearest' });
    }
  }

  /** What the list keys (keys/keymap.ts LIST_KEYS) do to this list. */
  handlers(): Handlers {
    return {
      'row:next': () => this.move(1),
      'row:previous': () => this.move(-1),
      'row:first': () => this.select(0),
      'row:last': () => this.select(this.size - 1),
      'row:open': () => this.open(),
    };
  }

  /** Opens the selected row's page. */
  open(): void {
    const record = this.#records.find((entry) => entry.id === this.#selected);
    if (record !== undefined) location.assign(this.#hrefOf(record));
  }
}
