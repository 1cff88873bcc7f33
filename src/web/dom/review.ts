/**
 * A workflow run's Review page (`/workflows/:run`): the run's state and its items per step, live
 * (`GET /api/workflows/runs/:run` every 2 s); the items its review steps wait on, each as `harmflow
 * workflow review` shows it — why it is up, the chain of outputs that changed it, a diff of what the
 * reviewer sees against the version before — and what people decided in this run.
 *
 * Everything works from the keyboard (keys/keymap.ts REVIEW_KEYS): `j`/`k` select an item, `a`
 * approves it, `r` rejects it with a note, `A` approves every item still waiting, `R` rejects them
 * with one note, `P` resumes the run; the capitals and the resume ask first. Each decision is sent at
 * once (`POST …/reviews`) with the reviewer's name — typed once, kept in this browser — and the
 * fingerprint of what was shown, so the service refuses an item that changed since. The resume
 * (`POST …/resume`) starts `harmflow workflow resume` on the service's machine.
 */
import { GLOBAL_KEYS, REVIEW_KEYS } from '../keys/keymap.js';
import {
  type RunReview,
  type RunRow,
  runLine,
  type StepCounts,
  spentAgainstPlan,
  type WaitingItem,
} from '../workflow-records.js';
import { confirmAction } from './confirm.js';
import { byId, el, formatTime } from './el.js';
import { installKeys } from './keyboard.js';
import { connect } from './session.js';

const POLL_MS = 2000;
/** Items a decision request carries at most: 500 × ≈90 bytes stays under the API's 64 KiB body limit. */
const PER_REQUEST = 500;
/** The reviewer's name, kept in this browser for the next review. */
const REVIEWER_KEY = 'harmflow.reviewer';

const run = byId('review').dataset.run ?? '';
const api = await connect();
const reviewer = byId<HTMLInputElement>('reviewer');
reviewer.value = localStorage.getItem(REVIEWER_KEY) ?? '';
reviewer.addEventListener('change', () => localStorage.setItem(REVIEWER_KEY, reviewer.value.trim()));

let review: RunReview | undefined;
let selected = 0;
/** The run as last polled: a change of state or of its last update reloads the review. */
let seen: string | undefined;
let busy = false;

installKeys(
  () => [
    { title: 'Review', keymap: REVIEW_KEYS },
    { title: 'Everywhere', keymap: GLOBAL_KEYS },
  ],
  {
    'row:next': () => select(selected + 1),
    'row:previous': () => select(selected - 1),
    'row:first': () => select(0),
    'row:last': () => select((review?.waiting.length ?? 1) - 1),
    'review:approve': () => void decideSelected('approve'),
    'review:reject': () => void decideSelected('reject'),
    'review:approve-all': () => void decideAll('approve'),
    'review:reject-all': () => void decideAll('reject'),
    'run:resume': () => void resume(),
    back: () => location.assign('/workflows'),
  },
);
byId('approve-all').addEventListener('click', () => void decideAll('approve'));
byId('reject-all').addEventListener('click', () => void decideAll('reject'));
byId('resume-run').addEventListener('click', () => void resume());
byId('waiting').addEventListener('click', (event) => {
  const item = (event.target as Element).closest('[role="option"]');
  const index = [...byId('waiting').querySelectorAll('[role="option"]')].indexOf(item as Element);
  if (index >= 0) select(index);
});

/** Polls the run; reloads the review when the run moved. */
async function poll(): Promise<void> {
  try {
    const { run: shown, steps } = (await api.get(`/api/workflows/runs/${run}`)) as {
      run: RunRow;
      steps: readonly StepCounts[];
    };
    renderRun(shown, steps);
    const now = `${shown.state} ${shown.updatedAt}`;
    if (now !== seen) {
      seen = now;
      await loadReview();
    }
  } catch (error) {
    say(`Cannot reach the service: ${(error as Error).message}`);
  }
}

async function loadReview(): Promise<void> {
  try {
    review = (await api.get(`/api/workflows/runs/${run}/reviews`)) as RunReview;
  } catch (error) {
    byId('waiting').replaceChildren(el('p', { class: 'error' }, (error as Error).message));
    return;
  }
  renderReview(review);
}

function renderRun(shown: RunRow, steps: readonly StepCounts[]): void {
  byId('run-title').textContent = `Run ${shown.id} of ${shown.workflow}`;
  byId('run-status').textContent = runLine(shown);
  byId<HTMLButtonElement>('resume-run').disabled = shown.state === 'running' || shown.state === 'succeeded';
  byId('rows').replaceChildren(
    ...steps.map((step) =>
      el(
        'tr',
        {},
        el('td', { 'data-label': 'Step' }, step.step),
        el('td', { 'data-label': 'Done' }, step.done.toLocaleString('en')),
        el('td', { 'data-label': 'Reused' }, step.reused.toLocaleString('en')),
        el('td', { 'data-label': 'Failed' }, step.failed.toLocaleString('en')),
        el('td', { 'data-label': 'Spent' }, spentAgainstPlan(step.spend)),
      ),
    ),
  );
}

function renderReview(current: RunReview): void {
  const { waiting } = current;
  byId('waiting-title').textContent = `Waiting for review: ${waiting.length}`;
  for (const id of ['approve-all', 'reject-all']) byId<HTMLButtonElement>(id).disabled = waiting.length === 0;
  selected = Math.min(selected, Math.max(0, waiting.length - 1));
  byId('waiting').replaceChildren(
    ...(waiting.length === 0
      ? [el('p', { class: 'empty' }, 'Nothing waits for review in this run.')]
      : waiting.map((item, index) => itemOf(item, index === selected))),
  );
  const rejections = current.rejected.map((item) =>
    el(
      'li',
      { class: 'rejected', 'data-key': item.key },
      el('strong', {}, `${item.step} ${item.key}`),
      ` — ${item.error} (${when(item.at)}). Not sent: it waits until a fix changes it.`,
    ),
  );
  // Approvals by who gave them: a sitting approves hundreds, listed under one line each reviewer.
  const byWhom = new Map<string, (typeof current.approved)[number][]>();
  for (const item of current.approved) byWhom.set(item.by, [...(byWhom.get(item.by) ?? []), item]);
  const approvals = [...byWhom].map(([by, items]) =>
    el(
      'details',
      { class: 'approved' },
      el('summary', {}, `${items.length} approved by ${by}, the last at ${when(items.at(-1)?.at ?? '')}`),
      el(
        'ul',
        { class: 'decisions' },
        ...items.map((item) => el('li', { 'data-key': item.key }, `${item.step} ${item.key} · ${when(item.at)}`)),
      ),
    ),
  );
  byId('decided').replaceChildren(
    ...(rejections.length + approvals.length === 0
      ? [el('p', { class: 'muted' }, 'No decision yet.')]
      : [...(rejections.length > 0 ? [el('ul', { class: 'decisions' }, ...rejections)] : []), ...approvals]),
  );
}

function itemOf(item: WaitingItem, isSelected: boolean): HTMLElement {
  return el(
    'article',
    { role: 'option', 'aria-selected': String(isSelected), 'data-key': item.key },
    el('h3', {}, `${item.step} ${item.key}`, el('span', { class: 'muted' }, ` — ${item.why}`)),
    item.because !== undefined && el('p', { class: 'because' }, `because: ${item.because}`),
    el(
      'pre',
      { class: 'diff' },
      ...item.diff.map((line) =>
        el('span', { class: line.startsWith('+ ') ? 'add' : line.startsWith('- ') ? 'del' : '' }, `${line}\n`),
      ),
    ),
    item.against !== undefined && el('p', { class: 'muted' }, `against ${item.against}`),
  );
}

function select(index: number): void {
  const options = [...byId('waiting').querySelectorAll<HTMLElement>('[role="option"]')];
  if (options.length === 0) return;
  selected = Math.min(options.length - 1, Math.max(0, index));
  options.forEach((option, at) => {
    option.setAttribute('aria-selected', String(at === selected));
  });
  options[selected]?.scrollIntoView({ block: 'nearest' });
}

/** The reviewer's name, or undefined (and the field focused) when none is typed. */
function who(): string | undefined {
  const name = reviewer.value.trim();
  if (name !== '') {
    localStorage.setItem(REVIEWER_KEY, name);
    return name;
  }
  say('Type your name in Reviewer first: it is recorded with each decision.');
  reviewer.focus();
  return undefined;
}

async function decideSelected(decision: 'approve' | 'reject'): Promise<void> {
  const item = review?.waiting[selected];
  if (item === undefined) return;
  await decide(decision, [item], `${item.step} ${item.key}`);
}

async function decideAll(decision: 'approve' | 'reject'): Promise<void> {
  const items = review?.waiting ?? [];
  if (items.length === 0) return;
  const what = `all ${items.length} item(s) waiting`;
  if (decision === 'approve') {
    const yes = await confirmAction({
      title: `Approve ${items.length} item(s)?`,
      text: `Every item still waiting in this run is approved as shown, in your name. Their effects go ahead when the run resumes.`,
      yes: `Approve ${items.length}`,
    });
    if (!yes) return;
  }
  await decide(decision, items, what);
}

/** Sends one decision on `items` (a rejection asks for its note first), then reloads the review. */
async function decide(decision: 'approve' | 'reject', items: readonly WaitingItem[], what: string): Promise<void> {
  if (busy) return;
  const by = who();
  if (by === undefined) return;
  let note: string | undefined;
  if (decision === 'reject') {
    note = await askNote(`Reject ${what}. It waits until a fix changes what it shows.`);
    if (note === undefined) return;
  }
  busy = true;
  let recorded = 0;
  try {
    // In parts that fit the API's body limit (64 KiB): ≈90 bytes an item.
    for (let at = 0; at < items.length; at += PER_REQUEST) {
      const chosen = items.slice(at, at + PER_REQUEST).map(({ key, fingerprint }) => ({ key, fingerprint }));
      await api.post(`/api/workflows/runs/${run}/reviews`, {
        by,
        [decision]: chosen,
        ...(note !== undefined && { note }),
      });
      recorded += chosen.length;
    }
    say(`${decision === 'approve' ? 'Approved' : 'Rejected'} ${what}, by ${by}.`);
  } catch (error) {
    const part = recorded > 0 ? ` (${recorded} of ${items.length} were)` : '';
    say(`Not recorded${part}: ${(error as Error).message}`);
  } finally {
    busy = false;
  }
  await loadReview();
}

async function resume(): Promise<void> {
  if (busy || byId<HTMLButtonElement>('resume-run').disabled) return;
  const waiting = review?.waiting.length ?? 0;
  const yes = await confirmAction({
    title: 'Resume the run?',
    text: `The run carries on with the decisions made${waiting > 0 ? `; ${waiting} item(s) still waiting keep waiting` : ''}. It runs on the service's machine.`,
    yes: 'Resume run',
  });
  if (!yes) return;
  busy = true;
  try {
    const started = (await api.post(`/api/workflows/runs/${run}/resume`)) as { pid: number };
    say(
      `Resumed: process ${started.pid} drives the run (its output: workflow-logs/${run}.log in the state directory).`,
    );
  } catch (error) {
    say(`Not resumed: ${(error as Error).message}`);
  } finally {
    busy = false;
  }
  await poll();
}

/** Asks for a rejection's note; undefined when the reviewer says "Not now". */
function askNote(text: string): Promise<string | undefined> {
  const dialog = byId<HTMLDialogElement>('note-dialog');
  const input = byId<HTMLTextAreaElement>('note-input');
  byId('note-text').textContent = text;
  input.value = '';
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => resolve(dialog.returnValue === 'yes' && input.value.trim() !== '' ? input.value.trim() : undefined),
      { once: true },
    );
    dialog.showModal();
    input.focus();
  });
}

function say(text: string): void {
  byId('review-status').textContent = text;
}

function when(iso: string): string {
  return `${iso.slice(0, 10)} ${formatTime(iso)}`;
}

await poll();
setInterval(poll, POLL_MS);
