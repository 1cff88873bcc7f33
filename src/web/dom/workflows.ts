/**
 * The Workflows screen (`/workflows`): every workflow run, newest first — its id, workflow, state as
 * it is now (`interrupted` for a run whose process is gone), its steps' progress, what it spent
 * (`≥ $X` when part of it is unknown), when it started, and why it stopped or what it waits for —
 * fetched every 2 s (`GET /api/workflows/runs`, and each running or waiting run's items per step). `j`/`k` select a run, `Enter` opens its Review page.
 */
import { GLOBAL_KEYS, LIST_KEYS } from '../keys/keymap.js';
import { type RunRow, type StepCounts, spentUsd, stepPhrase } from '../workflow-records.js';
import { byId, el, formatTime } from './el.js';
import { installKeys } from './keyboard.js';
import { RowList } from './row-list.js';
import { connect } from './session.js';

/** 2 s, as the Executions screen: a step's progress moves visibly, one small request per live run. */
const POLL_MS = 2000;

type Row = RunRow & { readonly steps?: readonly StepCounts[] };

const api = await connect();
const list = new RowList<Row>(byId('rows'), rowOf, (run) => `/workflows/${run.id}`);
installKeys(
  () => [
    { title: 'Workflows', keymap: LIST_KEYS },
    { title: 'Everywhere', keymap: GLOBAL_KEYS },
  ],
  list.handlers(),
);

async function refresh(): Promise<void> {
  try {
    const { runs } = (await api.get('/api/workflows/runs')) as { runs: readonly RunRow[] };
    const rows = await Promise.all(
      runs.map(async (run): Promise<Row> => {
        if (run.state !== 'running' && run.state !== 'waiting') return run;
        const { steps } = (await api.get(`/api/workflows/runs/${run.id}`)) as { steps: readonly StepCounts[] };
        return { ...run, steps };
      }),
    );
    list.render(rows, 'No workflow runs yet. Start one with `harmflow workflow run FILE`.');
    const waiting = runs.filter((run) => run.state === 'waiting').length;
    byId('summary').textContent = `${runs.length} run(s)${waiting > 0 ? `, ${waiting} waiting for review` : ''}`;
  } catch (error) {
    byId('summary').textContent = `Cannot reach the service: ${(error as Error).message}`;
    // The service no longer takes this browser's cookie (it restarted with another token): the reload asks.
    if ((error as { status?: number }).status === 401) location.reload();
  }
}

function rowOf(run: Row): HTMLTableRowElement {
  // The step it has reached: the last with any item done or failed.
  const last = run.steps?.findLast((step) => step.done + step.failed > 0);
  return el(
    'tr',
    {},
    el('td', { 'data-label': 'Workflow', class: 'nowrap' }, el('a', { href: `/workflows/${run.id}` }, run.workflow)),
    // The id's head tells runs apart in a list; the whole id is in the title and on the run's page.
    el('td', { 'data-label': 'Run', class: 'run-id', title: run.id }, `${run.id.slice(0, 10)}…`),
    el('td', { 'data-label': 'State', class: `state state-${run.state} nowrap` }, run.state),
    el('td', { 'data-label': 'Steps', class: 'nowrap' }, last === undefined ? '–' : stepPhrase(last)),
    el('td', { 'data-label': 'Spent', class: 'nowrap' }, spentUsd(run.spend)),
    el(
      'td',
      { 'data-label': 'Started', class: 'nowrap' },
      `${run.createdAt.slice(0, 10)} ${formatTime(run.createdAt)}`,
    ),
    el('td', { 'data-label': 'Waiting for / why' }, run.message ?? ''),
  );
}

await refresh();
setInterval(refresh, POLL_MS);
