/**
 * The Events timeline's groups: consecutive records of one attempt under a heading that names it and
 * its harness (`Attempt 2 · codex`), with a `live` badge while that attempt runs — from its
 * `attempt.started` until its `attempt.ended`, the next attempt's start, the execution's end, or the
 * service's restart closing it (`execution.resumed`'s `openAttempt`). A record without an attempt
 * joins the running attempt's group; between attempts it goes to an `Execution` group of its own (the
 * execution's start and end), so the records keep their order. Each group is an ARIA `group` of the
 * listbox named like its heading (the heading itself is hidden from assistive technology), so the
 * options, the selection and the keys are the timeline's as before. The timeline owns the list.
 */
import type { EventRecord } from '../records.js';
import { el } from './el.js';

interface Group {
  readonly attempt: number | undefined;
  readonly element: HTMLDivElement;
  readonly head: HTMLDivElement;
  harness: string | undefined;
}

export class AttemptGroups {
  readonly #list: HTMLElement;
  readonly #groups: Group[] = [];
  #live: Group | undefined;

  constructor(list: HTMLElement) {
    this.#list = list;
  }

  /** The element `record`'s row goes into (a new group when it starts one); keeps the live badge up to date. */
  place(record: EventRecord): HTMLElement {
    const attempt = record.attempt ?? this.#live?.attempt;
    let group = this.#groups.at(-1);
    if (group === undefined || group.attempt !== attempt) group = this.#open(attempt);
    if (group.harness === undefined && record.harness !== undefined && attempt !== undefined) {
      group.harness = record.harness;
      this.#label(group);
    }
    const ends =
      record.type === 'execution.ended' ||
      (record.type === 'attempt.ended' && record.attempt === this.#live?.attempt) ||
      (record.type === 'execution.resumed' && record.data.openAttempt === this.#live?.attempt);
    if (record.type === 'attempt.started') this.#setLive(group);
    else if (ends) this.#setLive(undefined);
    return group.element;
  }

  /** Hides each group none of whose rows is shown (after a filter). */
  refresh(): void {
    for (const { element } of this.#groups) {
      element.hidden = element.querySelector('[role="option"]:not([hidden])') === null;
    }
  }

  #open(attempt: number | undefined): Group {
    const head = el('div', { class: 'group-head', 'aria-hidden': 'true' });
    const element = el('div', { role: 'group', class: 'attempt-group' }, head);
    const group: Group = { attempt, element, head, harness: undefined };
    this.#groups.push(group);
    this.#label(group);
    this.#list.append(element);
    return group;
  }

  #setLive(group: Group | undefined): void {
    const was = this.#live;
    this.#live = group;
    if (was !== undefined && was !== group) this.#label(was);
    if (group !== undefined) this.#label(group);
  }

  #label(group: Group): void {
    const live = group === this.#live;
    const name =
      group.attempt === undefined
        ? 'Execution'
        : `Attempt ${group.attempt}${group.harness === undefined ? '' : ` · ${group.harness}`}`;
    group.element.setAttribute('aria-label', live ? `${name}, live` : name);
    group.element.dataset.live = String(live);
    group.head.replaceChildren(name, ...(live ? [el('span', { class: 'badge badge-live' }, 'live')] : []));
  }
}
