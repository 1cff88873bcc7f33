/**
 * The History screen (`/history`): ended executions, newest first — outcome, the harnesses it ran on
 * in order, its switches, duration, cost, the disk it still takes (worktree and run directory, or
 * the run directory alone once gc removed the worktree), the turns completed and the pull request it
 * opened (a link) — filtered by outcome, harness and text as you type.
 * Fetched once, and again every 10 s to pick up executions that end meanwhile.
 */

import { pullRequestCell, pullRequestHref } from '../execution-cells.js';
import { GLOBAL_KEYS, LIST_KEYS } from '../keys/keymap.js';
import { type ExecutionList, type ExecutionRow, totals, withAttempts } from '../records.js';
import { byId, el, formatDisk, formatDuration, formatUsd } from './el.js';
import { installKeys } from './keyboard.js';
import { RowList } from './row-list.js';
import { connect } from './session.js';

const POLL_MS = 10_000;

const outcome = byId<HTMLSelectElement>('filter-outcome');
const harness = byId<HTMLSelectElement>('filter-harness');
const text = byId<HTMLInputElement>('filter-text');

const api = await connect();
const list = new RowList<ExecutionRow>(byId('rows'), rowOf, (record) => `/executions/${record.id}`);
installKeys(
  () => [
    { title: 'History', keymap: LIST_KEYS },
    { title: 'Everywhere', keymap: GLOBAL_KEYS },
  ],
  {
    ...list.handlers(),
    'filter:focus': () => text.focus(),
  },
);

let all: readonly ExecutionRow[] = [];
async function refresh(): Promise<void> {
  const answer = (await api.get('/api/executions?state=ended&include=attempts,disk')) as ExecutionList;
  all = withAttempts(answer);
  const harnesses = [...new Set(all.flatMap((row) => row.attemptsList.map((attempt) => attempt.harness)))].sort();
  const chosen = harness.value;
  harness.replaceChildren(
    el('option', { value: '' }, 'any'),
    ...harnesses.map((name) => el('option', { value: name }, name)),
  );
  harness.value = harnesses.includes(chosen) ? chosen : '';
  render();
}

function render(): void {
  const needle = text.value.trim().toLowerCase();
  const shown = all.filter(
    (row) =>
      (outcome.value === '' || row.state === outcome.value) &&
      (harness.value === '' || row.attemptsList.some((attempt) => attempt.harness === harness.value)) &&
      (needle === '' ||
        [row.taskName, row.branch, row.message ?? '', row.id].some((field) => field.toLowerCase().includes(needle))),
  );
  list.render(shown, all.length === 0 ? 'No execution has ended yet.' : 'No ended execution matches the filters.');
  byId('summary').textContent = `${shown.length} of ${all.length} ended execution(s)`;
}

function rowOf(row: ExecutionRow): HTMLTableRowElement {
  const chain = row.attemptsList.map((attempt) => attempt.harness);
  const switches = row.attemptsList.filter(
    (attempt, index) => index > 0 && attempt.harness !== chain[index - 1],
  ).length;
  const duration =
    row.startedAt !== undefined && row.endedAt !== undefined
      ? formatDuration(Date.parse(row.endedAt) - Date.parse(row.startedAt))
      : '–';
  return el(
    'tr',
    {},
    el('td', { 'data-label': 'Task' }, el('a', { href: `/executions/${row.id}` }, row.taskName)),
    el('td', { 'data-label': 'Outcome', class: `state state-${row.state}` }, row.state),
    el('td', { 'data-label': 'Harnesses' }, chain.join(' → ') || '–'),
    el('td', { 'data-label': 'Switches' }, String(switches)),
    el('td', { 'data-label': 'Duration' }, duration),
    el('td', { 'data-label': 'Cost' }, formatUsd(totals(row.attemptsList).usd)),
    el('td', { 'data-label': 'Disk' }, formatDisk(row.disk)),
    el('td', { 'data-label': 'Turns' }, row.turnCount === undefined ? '–' : String(row.turnCount)),
    el('td', { 'data-label': 'PR' }, pullRequestLink(row.pullRequestUrl)),
    el('td', { 'data-label': 'Ended' }, row.endedAt === undefined ? '–' : new Date(row.endedAt).toLocaleString()),
  );
}

/** `#42`, a link to the pull request when its URL is http(s); `–` for none. */
function pullRequestLink(url: string | undefined): Node | string {
  if (url === undefined) return '–';
  const href = pullRequestHref(url);
  return href === undefined ? pullRequestCell(url) : el('a', { href }, pullRequestCell(url));
}

for (const control of [outcome, harness]) control.addEventListener('change', render);
text.addEventListener('input', render);
await refresh();
setInterval(() => void refresh(), POLL_MS);
