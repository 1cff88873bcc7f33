/**
 * The Events tab's timeline: the execution's records in order, as a listbox whose active option is
 * the selected event (`aria-activedescendant`), each row its time, attempt, harness, type and a line
 * about it, grouped by attempt with the running one marked live (attempt-groups.ts); the switch
 * story (quota, failover, attempt start and end) stands out. Records arrive live from the event
 * stream (`add`); a filter hides rows (and groups left empty) without losing their place; `j`/`k`,
 * `g`/`G`, `n`/`N` move the selection over the rows shown (keys/timeline.ts), `Enter` opens a row's
 * whole record and keeps it in view.
 */
import { describeEvent } from '../describe-event.js';
import { first, isSwitchRelated, last, nextMatching, step } from '../keys/timeline.js';
import type { EventRecord } from '../records.js';
import { AttemptGroups } from './attempt-groups.js';
import { el, formatTime } from './el.js';

/** 160 characters: a row stays one or two lines; Enter opens the whole record. */
const ROW_CHARS = 160;

/** The describer's line, cut to ROW_CHARS (`…`); a `workspace.warning`'s never, for what it says is the point. */
function rowLine(record: EventRecord): string {
  const line = describeEvent(record);
  return record.type === 'workspace.warning' || line.length <= ROW_CHARS ? line : `${line.slice(0, ROW_CHARS - 1)}…`;
}

export class Timeline {
  readonly #list: HTMLElement;
  readonly #groups: AttemptGroups;
  readonly #rows: { readonly record: EventRecord; readonly row: HTMLDivElement }[] = [];
  #filter = '';
  #selected: HTMLDivElement | undefined;

  constructor(list: HTMLElement) {
    this.#list = list;
    this.#groups = new AttemptGroups(list);
    list.addEventListener('click', (event) => {
      const row = (event.target as Element).closest('[role="option"]');
      if (row instanceof HTMLDivElement) {
        this.#select(row);
        this.open();
      }
    });
  }

  add(record: EventRecord, id: number): void {
    const row = el(
      'div',
      {
        id: `event-${id}`,
        role: 'option',
        'aria-selected': 'false',
        'data-type': record.type,
        class: isSwitchRelated(record.type) ? 'switch' : record.source === 'gate' ? 'gate' : undefined,
      },
      el('span', { class: 'time' }, formatTime(record.ts)),
      el('span', { class: 'attempt' }, record.attempt === undefined ? '' : `#${record.attempt}`),
      el('span', { class: 'harness-col' }, record.harness ?? ''),
      el('span', { class: 'type' }, record.type),
      el('span', { class: 'summary' }, rowLine(record)),
    );
    row.hidden = !this.#matches(record, row);
    this.#rows.push({ record, row });
    this.#groups.place(record).append(row);
    this.#groups.refresh();
  }

  /** Shows only the rows whose type, harness or line contains `text` (case-insensitive). */
  filter(text: string): void {
    this.#filter = text.trim().toLowerCase();
    for (const { record, row } of this.#rows) row.hidden = !this.#matches(record, row);
    this.#groups.refresh();
  }

  step(delta: number): void {
    const shown = this.#shown();
    this.#selectAt(shown, step(shown.length, this.#index(shown), delta));
  }

  first(): void {
    const shown = this.#shown();
    this.#selectAt(shown, first(shown.length));
  }

  last(): void {
    const shown = this.#shown();
    this.#selectAt(shown, last(shown.length));
  }

  /** The next (1) or previous (-1) switch-related event among the rows shown; stays put when there is none. */
  nextSwitch(direction: 1 | -1): void {
    const shown = this.#shown();
    const types = shown.map((entry) => entry.record.type);
    this.#selectAt(shown, nextMatching(types, this.#index(shown), direction, isSwitchRelated));
  }

  /** Opens (or closes) the selected row's whole record; an opened one is scrolled into view, as little as it takes. */
  open(): void {
    const row = this.#selected;
    const entry = this.#rows.find((candidate) => candidate.row === row);
    if (row === undefined || entry === undefined) return;
    const open = row.querySelector('.detail');
    if (open !== null) {
      open.remove();
      row.removeAttribute('aria-expanded');
      return;
    }
    row.append(el('pre', { class: 'detail' }, JSON.stringify(entry.record, null, 2)));
    row.setAttribute('aria-expanded', 'true');
    row.scrollIntoView({ block: 'nearest' });
  }

  #matches(record: EventRecord, row: HTMLDivElement): boolean {
    return (
      this.#filter === '' ||
      (row.textContent ?? '').toLowerCase().includes(this.#filter) ||
      record.type.includes(this.#filter)
    );
  }

  #shown() {
    return this.#rows.filter((entry) => !entry.row.hidden);
  }

  #index(shown: readonly { readonly row: HTMLDivElement }[]): number {
    return shown.findIndex((entry) => entry.row === this.#selected);
  }

  #selectAt(shown: readonly { readonly row: HTMLDivElement }[], index: number): void {
    const entry = shown[index];
    if (entry !== undefined) this.#select(entry.row);
  }

  #select(row: HTMLDivElement): void {
    this.#selected?.setAttribute('aria-selected', 'false');
    row.setAttribute('aria-selected', 'true');
    this.#selected = row;
    this.#list.setAttribute('aria-activedescendant', row.id);
    row.scrollIntoView({ block: 'nearest' });
  }
}
