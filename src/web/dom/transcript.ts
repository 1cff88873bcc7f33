/**
 * The Transcript tab: the conversation as it happened, built from the same records as the
 * timeline — the user's turns (marked when handed over to the next harness or delivered again after a
 * restart), the assistant's text, tool calls with their results (collapsed; open to read), each call
 * marked `ok` or `failed` (with the exit code when reported) once its result arrives, and a note
 * where an attempt starts or the execution switches harness. `add` takes records in log order.
 */
import type { EventRecord } from '../records.js';
import { el } from './el.js';

export class Transcript {
  readonly #root: HTMLElement;
  /** Tool calls by id, to put each result under its call. */
  readonly #calls = new Map<string, HTMLDetailsElement>();

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  add(record: EventRecord): void {
    const d = record.data;
    const text = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : '');
    switch (record.type) {
      case 'turn.started': {
        const delivery = text('delivery');
        this.#root.append(
          el(
            'div',
            { class: `turn user ${delivery === 'first' ? '' : delivery}`.trim(), 'data-turn': text('turn') },
            el('strong', {}, 'You'),
            el('div', {}, text('text')),
          ),
        );
        return;
      }
      case 'message':
        this.#root.append(
          el(
            'div',
            { class: 'turn assistant' },
            el('strong', {}, record.harness ?? 'assistant'),
            el('div', {}, text('text')),
          ),
        );
        return;
      case 'tool.call': {
        const call = el(
          'details',
          { 'data-call': text('id') },
          el('summary', {}, `${text('name')} ${text('shell')}`.trim()),
          el('pre', {}, JSON.stringify(d.input ?? null, null, 2)),
        );
        this.#calls.set(text('id'), call);
        this.#root.append(call);
        return;
      }
      case 'tool.result': {
        const ok = d.ok === true;
        const result = el('pre', { class: ok ? 'ok' : 'error' }, text('output') || (ok ? 'ok' : 'failed'));
        const call = this.#calls.get(text('id'));
        if (call === undefined) {
          this.#root.append(result);
          return;
        }
        const exit = typeof d.exitCode === 'number' ? ` (exit ${d.exitCode})` : '';
        call.dataset.result = ok ? 'ok' : 'failed';
        call
          .querySelector('summary')
          ?.append(' ', el('span', { class: ok ? 'badge tool-ok' : 'badge tool-failed' }, ok ? 'ok' : `failed${exit}`));
        call.append(result);
        return;
      }
      case 'attempt.started':
        this.#root.append(
          el('p', { class: 'switch-note' }, `Attempt ${record.attempt ?? '?'} on ${record.harness ?? '?'}`),
        );
        return;
      case 'failover':
        this.#root.append(
          el('p', { class: 'switch-note' }, `Switched ${text('from')} → ${text('to')} (${text('reason')})`),
        );
        return;
      default:
        return;
    }
  }

  /** True once the turn `id` has been delivered to a harness (its `turn.started` arrived). */
  delivered(turn: string): boolean {
    return this.#root.querySelector(`[data-turn="${CSS.escape(turn)}"]`) !== null;
  }
}
