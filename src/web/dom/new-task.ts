/**
 * The Executions screen's New task form (`#new-task-dialog`, src/server/ui/new-task-dialog.tsx):
 * write a task in the form or in its YAML view, each kept in step with the other through the
 * service's check (`POST /api/tasks/check`: the CLI's schema, YAML read and written by the service),
 * every problem shown beside its field at once, then submit it (`POST /api/executions`) and open the
 * new execution's page.
 *
 * - A problem shows beside its field once that field was edited, and every problem once the YAML
 *   was edited or a submit tried: a blank form does not open on a list of what it lacks.
 * - An edit of the form rewrites the YAML; an edit of the YAML refills the form, or, YAML that cannot
 *   be read, shows why under it and leaves the form as it was. Checks run 150 ms after the last edit;
 *   an answer is dropped when a newer request was sent or a newer edit waits.
 * - Submit (the button, Enter in a field, Ctrl+Enter in a text area) checks first and submits only a
 *   task with no problem, with an `Idempotency-Key` kept as long as the task is the same: a second
 *   click, or a retry after a lost answer, makes no second execution. A refusal is one line
 *   (`#task-status`); the form keeps everything.
 * - Esc, or Close, asks first (the page's confirm dialog) when anything was written, and discards it
 *   on yes; the draft is kept while the page lives otherwise.
 */
import type { Api } from '../api.js';
import { fieldOf, formFromTask, type TaskData, type TaskFormValues, taskFromForm } from '../task-form.js';
import { confirmAction } from './confirm.js';
import { byId, el } from './el.js';
import { ChainRows } from './task-chain.js';

/** 150 ms: past a typing burst's gap between keys, short enough that the other view follows at once. */
const CHECK_DELAY_MS = 150;

/** A problem as the check answers it: its place (`''`: none), for unreadable YAML its line. */
interface Problem {
  readonly path: string;
  readonly line?: number;
  readonly message: string;
}

interface CheckAnswer {
  readonly task?: TaskData;
  readonly yaml?: string;
  readonly problems: readonly Problem[];
}

/** The inputs named by a text key of TaskFormValues. */
const TEXT_FIELDS = [
  'name',
  'prompt',
  'repo',
  'baseRef',
  'timeout',
  'maxSwitches',
  'interruptBudget',
  'maxWait',
  'quotaCoolDown',
  'switchAtUtilization',
  'sandbox',
] as const;
const CHECKS = ['waitForReset', 'countManualSwitches'] as const;

const DISCARD = {
  title: 'Discard this task?',
  text: 'What you wrote in the New task form is lost.',
  yes: 'Discard',
} as const;

/** The first task a form shows: one link, claude-code. */
const BLANK: TaskData = { harness: 'claude-code' };

export class NewTask {
  readonly #api: Api;
  readonly #dialog = byId<HTMLDialogElement>('new-task-dialog');
  readonly #form = byId<HTMLFormElement>('new-task-form');
  readonly #yaml = byId<HTMLTextAreaElement>('task-yaml');
  readonly #status = byId('task-status');
  readonly #submit = byId<HTMLButtonElement>('task-submit');
  readonly #chain = new ChainRows(() => this.#edited());
  /** The task as the form and the YAML last agreed on. */
  #task: TaskData = BLANK;
  #changed = false;
  /** The fields edited since the form was blank (`fieldOf`'s names); every field once `#all`. */
  readonly #touched = new Set<string>();
  #all = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The body of the check waiting on the timer; the latest request's number. */
  #pending: { task: TaskData } | { yaml: string } | undefined;
  #sent = 0;
  #submitting = false;
  /** The idempotency key of the task last submitted, while that task is unchanged. */
  #key: { readonly task: string; readonly key: string } | undefined;

  constructor(api: Api) {
    this.#api = api;
    this.#show(BLANK);
    this.#form.addEventListener('input', (event) => {
      if (event.target === this.#yaml) return this.#yamlEdited();
      const { id, name } = event.target as HTMLInputElement;
      this.#touched.add((id || name).replace(/^task-/, '').replace(/-model$/, ''));
      this.#edited();
    });
    this.#form.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && event.target instanceof HTMLTextAreaElement) {
        event.preventDefault();
        this.#form.requestSubmit();
      }
    });
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#send();
    });
    // Esc: the dialog's cancel. Asked first when anything was written.
    this.#dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      void this.close();
    });
    byId('task-close').addEventListener('click', () => void this.close());
  }

  /** Opens the form, the focus on the prompt. */
  open(): void {
    if (this.#dialog.open) return;
    this.#dialog.showModal();
    byId('task-prompt').focus();
  }

  /** Closes the form, asking first when it was written in; a yes discards the draft. */
  async close(): Promise<void> {
    if (this.#changed) {
      if (!(await confirmAction(DISCARD))) return;
      this.#show(BLANK);
    }
    this.#dialog.close();
  }

  #edited(): void {
    this.#changed = true;
    this.#task = taskFromForm(this.#values(), this.#task);
    this.#schedule({ task: this.#task });
  }

  #yamlEdited(): void {
    this.#changed = true;
    this.#all = true;
    this.#schedule({ yaml: this.#yaml.value });
  }

  #schedule(body: { task: TaskData } | { yaml: string }): void {
    this.#pending = body;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#check(), CHECK_DELAY_MS);
  }

  /** Runs the pending check now (none pending: checks the task as it is); resolves with its problems, or undefined when a newer check overtook it. */
  async #check(): Promise<readonly Problem[] | undefined> {
    clearTimeout(this.#timer);
    const body = this.#pending ?? { task: this.#task };
    this.#pending = undefined;
    const number = ++this.#sent;
    let answer: CheckAnswer;
    try {
      answer = (await this.#api.post('/api/tasks/check', body)) as CheckAnswer;
    } catch (error) {
      if (number === this.#sent) this.#status.textContent = `Cannot check the task: ${(error as Error).message}`;
      return undefined;
    }
    // A newer request, or an edit waiting for its own (the other view may be being typed in): drop it.
    if (number !== this.#sent || this.#pending !== undefined) return undefined;
    this.#status.textContent = '';
    if ('yaml' in body) {
      if (answer.task !== undefined) {
        this.#task = answer.task;
        this.#fill(formFromTask(answer.task));
      }
    } else if (answer.yaml !== undefined) this.#yaml.value = answer.yaml;
    this.#problems(answer.problems);
    return answer.problems;
  }

  async #send(): Promise<void> {
    if (this.#submitting) return;
    this.#submitting = true;
    this.#submit.disabled = true;
    this.#all = true;
    try {
      const problems = await this.#check();
      if (problems === undefined) return;
      if (problems.length > 0) {
        this.#status.textContent = `${problems.length === 1 ? 'One problem' : `${problems.length} problems`} to fix before submitting.`;
        this.#form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
        return;
      }
      const task = JSON.stringify(this.#task);
      if (this.#key?.task !== task) this.#key = { task, key: idempotencyKey() };
      this.#status.textContent = 'Submitting…';
      const answer = (await this.#api.post(
        '/api/executions',
        { task: this.#task },
        {
          'Idempotency-Key': this.#key.key,
        },
      )) as { execution: { id: string } };
      this.#changed = false;
      location.assign(`/executions/${answer.execution.id}`);
    } catch (error) {
      this.#status.textContent = `Not submitted: ${(error as Error).message}`;
    } finally {
      this.#submitting = false;
      this.#submit.disabled = false;
    }
  }

  /** Shows `task` in the form and the YAML view, unchanged, with no problems. */
  #show(task: TaskData): void {
    this.#task = task;
    this.#changed = false;
    this.#touched.clear();
    this.#all = false;
    this.#key = undefined;
    this.#fill(formFromTask(task));
    this.#yaml.value = '';
    this.#status.textContent = '';
    this.#problems([]);
    this.#pending = { task };
    void this.#check();
  }

  #values(): TaskFormValues {
    const value = (key: string) => byId<HTMLInputElement>(`task-${key}`).value;
    const checked = (key: string) => byId<HTMLInputElement>(`task-${key}`).checked;
    const texts = Object.fromEntries(TEXT_FIELDS.map((key) => [key, value(key)]));
    return {
      ...(texts as Record<(typeof TEXT_FIELDS)[number], string>),
      chain: this.#chain.values,
      failoverOn: [...this.#form.querySelectorAll<HTMLInputElement>('input[name="failoverOn"]:checked')].map(
        (input) => input.value,
      ),
      waitForReset: checked('waitForReset'),
      countManualSwitches: checked('countManualSwitches'),
    };
  }

  #fill(values: TaskFormValues): void {
    for (const key of TEXT_FIELDS) byId<HTMLInputElement>(`task-${key}`).value = values[key];
    for (const key of CHECKS) byId<HTMLInputElement>(`task-${key}`).checked = values[key];
    for (const input of this.#form.querySelectorAll<HTMLInputElement>('input[name="failoverOn"]'))
      input.checked = values.failoverOn.includes(input.value);
    this.#chain.values = values.chain;
  }

  /** Shows each problem beside its field, the others (and unreadable YAML) under the YAML view. */
  #problems(problems: readonly Problem[]): void {
    for (const slot of this.#form.querySelectorAll('.problem')) slot.textContent = '';
    for (const input of this.#form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
    const rest: string[] = [];
    for (const problem of problems) {
      const field = problem.line === undefined ? fieldOf(problem.path) : undefined;
      const slot = field === undefined ? null : document.getElementById(`task-${field}-problem`);
      if (slot !== null && !this.#all && !this.#touched.has(field ?? '')) continue;
      if (slot === null) {
        const where = problem.line === undefined ? problem.path : `line ${problem.line}`;
        rest.push(where === '' ? problem.message : `${where}: ${problem.message}`);
        continue;
      }
      slot.textContent = slot.textContent === '' ? problem.message : `${slot.textContent}; ${problem.message}`;
      document.getElementById(`task-${field}`)?.setAttribute('aria-invalid', 'true');
      if (slot.closest('details') !== null) byId<HTMLDetailsElement>('task-more').open = true;
    }
    byId('task-yaml-problems').replaceChildren(...rest.map((line) => el('li', {}, line)));
    if (rest.length > 0) this.#yaml.setAttribute('aria-invalid', 'true');
  }
}

/** 128 random bits as hex: an `Idempotency-Key` (getRandomValues works where randomUUID needs a secure context). */
function idempotencyKey(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
