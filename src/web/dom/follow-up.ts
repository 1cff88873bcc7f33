/**
 * The Transcript's follow-up box (`#send-form`): sends its text into the execution's open session
 * (`POST /api/executions/:id/messages`), `Ctrl`+`Enter` (⌘+`Enter`) as well as the button, and says
 * when the harness has it (`delivered`, called with each record once the transcript took it). On an
 * ended execution the box says what sending does (`#send-note`): a succeeded one is reopened — and
 * the box asks first, in the page's confirm dialog, "Not now" keeping the text — while one that ended
 * otherwise refuses follow-ups. `onSent` runs after each message the service took (the page follows
 * a reopened execution's stream again). The page owns the instance for its lifetime.
 */
import type { Api } from '../api.js';
import { followUpNote, followUpTo, REFUSED, REOPEN_QUESTION } from '../execution-actions.js';
import { confirmAction } from './confirm.js';
import { byId } from './el.js';
import type { Transcript } from './transcript.js';

export class FollowUp {
  readonly #form = byId<HTMLFormElement>('send-form');
  readonly #text = byId<HTMLTextAreaElement>('send-text');
  readonly #status = byId('send-status');
  readonly #note = byId('send-note');
  #state: string | undefined;
  /** The turn sent last, until the harness has it. */
  #awaited: string | undefined;

  constructor(api: Api, execution: string, onSent: () => void) {
    // Ctrl+Enter (⌘+Enter) sends, as in most chat boxes; Enter alone is a new line.
    this.#text.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.#form.requestSubmit();
      }
    });
    this.#form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const text = this.#text.value.trim();
      if (text === '') return;
      if (this.#state !== undefined && followUpTo(this.#state) === 'reopens' && !(await confirmAction(REOPEN_QUESTION)))
        return;
      try {
        const answer = (await api.post(`/api/executions/${execution}/messages`, { text })) as { turn: { id: string } };
        this.#awaited = answer.turn.id;
        this.#text.value = '';
        this.#status.textContent = `Queued (turn ${answer.turn.id}); waiting for the harness to take it…`;
        onSent();
      } catch (error) {
        this.#status.textContent = `${REFUSED.send}: ${(error as Error).message}`;
      }
    });
  }

  /** The execution's state, as its record says now: the note follows it. */
  set state(state: string) {
    this.#state = state;
    const note = followUpNote(state);
    this.#note.hidden = note === undefined;
    this.#note.textContent = note ?? '';
  }

  focus(): void {
    this.#text.focus();
  }

  /** Says the awaited turn was delivered once `transcript` shows it, to `harness`. */
  delivered(transcript: Transcript, harness: string | undefined): void {
    if (this.#awaited === undefined || !transcript.delivered(this.#awaited)) return;
    this.#status.textContent = `Delivered to ${harness ?? 'the harness'} (turn ${this.#awaited}).`;
    this.#awaited = undefined;
  }
}
