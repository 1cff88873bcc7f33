/**
 * The detail page's actions on its execution: while it waits for a quota reset, the wait it is in
 * (`waiting for claude-code, which resets at 14:05 (in 59 min)`) and "Resume now"
 * (`POST /api/executions/:id/resume`); while it runs or waits, "Switch harness…"
 * (`POST …/switch`, the harness chosen in switch-dialog.ts); while it is not over, "Cancel"
 * (`POST …/cancel`). Each asks first (confirm.ts, switch-dialog.ts). What follows — the wait's end, the next attempt, the end — reaches the page
 * through its event stream, so an answer here only says the request was taken.
 */
import type { Api } from '../api.js';
import { CANCEL_QUESTION, OPEN_STATES, REFUSED, resumeQuestion, SWITCHABLE_STATES } from '../execution-actions.js';
import { describeWait, type Wait } from '../wait.js';
import { confirmAction } from './confirm.js';
import { byId } from './el.js';
import { askSwitch } from './switch-dialog.js';

export class ExecutionActions {
  readonly #api: Api;
  readonly #execution: string;
  readonly #note = byId('wait-note');
  readonly #resume = byId<HTMLButtonElement>('resume-button');
  readonly #cancel = byId<HTMLButtonElement>('cancel-button');
  readonly #switch = byId<HTMLButtonElement>('switch-button');
  readonly #status = byId('action-status');
  #state: string | undefined;
  #wait: Wait | undefined;
  /** The harness running (or last run) now, as the record says. */
  harness: string | undefined;

  constructor(api: Api, execution: string) {
    this.#api = api;
    this.#execution = execution;
    this.#resume.addEventListener('click', () => void this.resume());
    this.#cancel.addEventListener('click', () => void this.cancel());
    this.#switch.addEventListener('click', () => void this.switchHarness());
  }

  /** The execution's state, as its record says now. */
  set state(state: string) {
    this.#state = state;
    this.render();
  }

  /** The wait its event stream has open, if any. */
  set wait(wait: Wait | undefined) {
    this.#wait = wait;
    this.render();
  }

  /** The wait shown, when the record says waiting and the stream has a wait open. */
  get #shownWait(): Wait | undefined {
    return this.#state === 'waiting' ? this.#wait : undefined;
  }

  /** Shows what holds now; called on every change and every second (the countdown). */
  render(): void {
    const wait = this.#shownWait;
    this.#note.hidden = wait === undefined;
    this.#note.textContent = wait === undefined ? '' : `${capitalized(describeWait(wait, new Date()))}.`;
    this.#resume.hidden = wait === undefined;
    this.#cancel.hidden = this.#state === undefined || !OPEN_STATES.has(this.#state);
    this.#switch.hidden = this.#state === undefined || !SWITCHABLE_STATES.has(this.#state);
  }

  /** Asks, then ends the wait now; nothing when the execution is not waiting. */
  async resume(): Promise<void> {
    const wait = this.#shownWait;
    if (wait === undefined) return;
    if (await confirmAction(resumeQuestion(wait.harness))) await this.#post('resume', 'Resuming…');
  }

  /** Asks, then cancels the execution; nothing when it is over. */
  async cancel(): Promise<void> {
    if (this.#state === undefined || !OPEN_STATES.has(this.#state)) return;
    if (await confirmAction(CANCEL_QUESTION)) await this.#post('cancel', 'Canceling…');
  }

  /** Asks which harness, then switches to it; nothing when the execution neither runs nor waits. */
  async switchHarness(): Promise<void> {
    if (this.#state === undefined || !SWITCHABLE_STATES.has(this.#state)) return;
    const choice = await askSwitch(this.harness);
    if (choice === undefined) return;
    const { harness, ...rest } = choice;
    await this.#post('switch', `Switching to ${harness}…`, { to: harness, by: 'workbench', ...rest });
  }

  async #post(action: 'resume' | 'cancel' | 'switch', pending: string, body?: unknown): Promise<void> {
    this.#status.textContent = pending;
    try {
      await this.#api.post(`/api/executions/${this.#execution}/${action}`, body);
    } catch (error) {
      this.#status.textContent = `${REFUSED[action]}: ${(error as Error).message}`;
    }
  }

  /** Clears the pending note, once the stream shows the request's effect (the wait or the execution ended). */
  settled(): void {
    this.#status.textContent = '';
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
