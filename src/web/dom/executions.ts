/**
 * The Executions screen (`/`): every queued, running or waiting execution — task, state (for a
 * waiting one, the harness it waits for and when that resets), the harness it is on and its attempt,
 * elapsed time against its timeout, tokens and cost so far, the disk its worktree and run directory
 * take, the turns completed, and the pid and host of the process that drives it (`(gone)` when its
 * owner file names a process that is gone) — fetched every 2 s
 * (`GET /api/executions?state=live&include=attempts,waits,disk,owners`; the service measures each
 * tree at most every 30 s), the elapsed column ticking each second. New task (`c`)
 * opens the form that submits one (new-task.ts).
 */

import { ownerCell } from '../execution-cells.js';
import { EXECUTIONS_KEYS, GLOBAL_KEYS, LIST_KEYS } from '../keys/keymap.js';
import { type ExecutionList, type ExecutionRow, totals, withAttempts } from '../records.js';
import { resetNote, resetTime } from '../wait.js';
import { byId, el, formatDisk, formatDuration, formatTokens, formatUsd } from './el.js';
import { installKeys } from './keyboard.js';
import { NewTask } from './new-task.js';
import { RowList } from './row-list.js';
import { connect } from './session.js';

/** 2 s: live enough to see a switch happen, one small request per tab. */
const POLL_MS = 2000;

const api = await connect();
const list = new RowList<ExecutionRow>(byId('rows'), rowOf, (record) => `/executions/${record.id}`);
const newTask = new NewTask(api);
byId('new-task-button').addEventListener('click', () => newTask.open());
installKeys(
  () => [
    { title: 'Executions', keymap: [...LIST_KEYS, ...EXECUTIONS_KEYS] },
    { title: 'Everywhere', keymap: GLOBAL_KEYS },
  ],
  {
    ...list.handlers(),
    'task:new': () => newTask.open(),
  },
);

let latest: readonly ExecutionRow[] = [];
async function refresh(): Promise<void> {
  try {
    const answer = (await api.get('/api/executions?state=live&include=attempts,waits,disk,owners')) as ExecutionList;
    latest = withAttempts(answer);
    render();
  } catch (error) {
    byId('summary').textContent = `Cannot reach the service: ${(error as Error).message}`;
    // The service no longer takes this browser's cookie (it restarted with another token): the reload asks.
    if ((error as { status?: number }).status === 401) location.reload();
  }
}

function render(): void {
  list.render(latest, 'Nothing is running, queued or waiting. Submit a task with New task (`c`) or `harmflow submit`.');
  byId('summary').textContent = `${latest.length} live execution(s)`;
}

function rowOf(execution: ExecutionRow): HTMLTableRowElement {
  const { tokens, usd } = totals(execution.attemptsList);
  const now = new Date();
  const started = execution.startedAt === undefined ? undefined : Date.parse(execution.startedAt);
  const timeout = started === undefined ? undefined : Date.parse(execution.deadline) - started;
  const elapsed = started === undefined ? 'not started' : formatDuration(Date.now() - started);
  return el(
    'tr',
    {},
    el('td', { 'data-label': 'Task' }, el('a', { href: `/executions/${execution.id}` }, execution.taskName)),
    el(
      'td',
      { 'data-label': 'State', class: `state state-${execution.state}` },
      execution.state,
      execution.wait &&
        el(
          'span',
          { class: 'wait-for' },
          `for ${execution.wait.harness} · resets ${resetTime(execution.wait, now)} (${resetNote(execution.wait, now)})`,
        ),
    ),
    el('td', { 'data-label': 'Harness' }, `${execution.currentHarness ?? '–'} · attempt ${execution.attemptCount}`),
    el(
      'td',
      { 'data-label': 'Elapsed / timeout' },
      timeout === undefined ? elapsed : `${elapsed} / ${formatDuration(timeout)}`,
    ),
    el('td', { 'data-label': 'Tokens' }, formatTokens(tokens)),
    el('td', { 'data-label': 'Cost' }, formatUsd(usd)),
    el('td', { 'data-label': 'Disk' }, formatDisk(execution.disk)),
    el('td', { 'data-label': 'Turns' }, execution.turnCount === undefined ? '–' : String(execution.turnCount)),
    el('td', { 'data-label': 'Owner' }, execution.owner === undefined ? '–' : ownerCell(execution.owner)),
  );
}

await refresh();
setInterval(refresh, POLL_MS);
setInterval(render, 1000);
