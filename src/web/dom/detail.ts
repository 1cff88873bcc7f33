/**
 * An execution's detail page (`/executions/:id`): its title and state, and four tabs — Summary,
 * Events, Transcript, Changes. One event stream (event-stream.ts, resuming with Last-Event-ID) feeds
 * both the timeline and the transcript, live while the execution runs; an attempt's start or end, a
 * switch or the end reloads the summary. The Transcript's box (follow-up.ts) sends a follow-up into
 * the open session and says when the harness has it; a message to an ended execution reopens it
 * (after asking), and the page follows its stream again after the last record. Under the title, the
 * pull request the execution opened, once a record shows it. Above the tabs,
 * the actions (actions.ts): a waiting execution's wait with "Resume now", "Switch harness…" and
 * "Cancel"; `R` resumes, `S` switches, `C` cancels, `m` opens the message box.
 */
import type { SessionRouting } from '../describe-routing.js';
import { openEventStream } from '../event-stream.js';
import { DETAIL_KEYS, EVENTS_KEYS, GLOBAL_KEYS } from '../keys/keymap.js';
import { type PullRequest, pullRequestLabel, pullRequestOf } from '../pull-request.js';
import type { AttemptRecord, EventRecord, ExecutionRecord } from '../records.js';
import { changesSummary, SUMMARY_DELAY_MS } from '../summary-triggers.js';
import { followWait, type Wait } from '../wait.js';
import { ExecutionActions } from './actions.js';
import { renderChanges } from './changes.js';
import { byId, el } from './el.js';
import { FollowUp } from './follow-up.js';
import { installKeys } from './keyboard.js';
import { connect } from './session.js';
import { renderSummary } from './summary.js';
import { Tabs } from './tabs.js';
import { Timeline } from './timeline.js';
import { Transcript } from './transcript.js';

const execution = byId('detail').dataset.execution ?? '';
const api = await connect();
const timeline = new Timeline(byId('timeline'));
const transcript = new Transcript(byId('transcript'));
const actions = new ExecutionActions(api, execution);
let wait: Wait | undefined;

async function refreshSummary(): Promise<void> {
  const {
    execution: record,
    attempts,
    routing,
  } = (await api.get(`/api/executions/${execution}`)) as {
    execution: ExecutionRecord;
    attempts: readonly AttemptRecord[];
    routing?: SessionRouting;
  };
  byId('detail-title').textContent = record.taskName;
  byId('detail-status').textContent =
    `${record.state}${record.currentHarness ? ` on ${record.currentHarness}` : ''} · attempt ${record.attemptCount} · ${execution}`;
  actions.harness = record.currentHarness ?? undefined;
  actions.state = record.state;
  followUp.state = record.state;
  await renderSummary(byId('summary-body'), api, record, attempts, routing);
}

let summaryScheduled = false;
function scheduleSummary(): void {
  if (summaryScheduled) return;
  summaryScheduled = true;
  setTimeout(() => {
    summaryScheduled = false;
    void refreshSummary();
  }, SUMMARY_DELAY_MS);
}

const tabs = new Tabs(byId('detail').querySelector('[role="tablist"]') as HTMLElement, (id) => {
  if (id === 'changes') void renderChanges(byId('changes-body'), api, execution);
  if (id === 'events') byId('timeline').focus();
});
const filter = byId<HTMLInputElement>('events-filter');
filter.addEventListener('input', () => timeline.filter(filter.value));

installKeys(
  () => [
    ...(tabs.current === 'events' ? [{ title: 'Events', keymap: EVENTS_KEYS }] : []),
    { title: 'This execution', keymap: DETAIL_KEYS },
    { title: 'Everywhere', keymap: GLOBAL_KEYS },
  ],
  {
    'tab:summary': () => tabs.select('summary', true),
    'tab:events': () => tabs.select('events', true),
    'tab:transcript': () => tabs.select('transcript', true),
    'tab:changes': () => tabs.select('changes', true),
    'event:next': () => timeline.step(1),
    'event:previous': () => timeline.step(-1),
    'event:first': () => timeline.first(),
    'event:last': () => timeline.last(),
    'event:next-switch': () => timeline.nextSwitch(1),
    'event:previous-switch': () => timeline.nextSwitch(-1),
    'event:open': () => timeline.open(),
    'execution:resume': () => void actions.resume(),
    'execution:switch': () => void actions.switchHarness(),
    'execution:cancel': () => void actions.cancel(),
    'execution:message': () => {
      tabs.select('transcript', true);
      followUp.focus();
    },
    'filter:focus': () => (tabs.current === 'events' ? filter : byId('send-text')).focus(),
    back: () => location.assign(document.referrer.includes('/history') ? '/history' : '/'),
  },
);

/** The id of the last record received, and whether the stream ended with the execution. */
let lastId = 0;
let streamEnded = false;
// A message reopens an ended execution (docs/api.md): its stream is followed again, after the last record.
const followUp = new FollowUp(api, execution, () => {
  if (!streamEnded) return;
  streamEnded = false;
  follow(lastId);
});

/** Follows the execution's records after the `from`th (all of them from 0). */
function follow(from: number): void {
  openEventStream({
    url: `${location.origin}/api/executions/${execution}/events${from > 0 ? `?from=${from}` : ''}`,
    onRecord,
    onEnd: () => {
      streamEnded = true;
    },
    onError: (error) => {
      byId('detail-status').textContent = `Event stream: ${error instanceof Error ? error.message : String(error)}`;
    },
  });
}

function onRecord(record: unknown, id: number): void {
  lastId = id;
  const event = record as EventRecord;
  timeline.add(event, id);
  transcript.add(event);
  followUp.delivered(transcript, event.harness);
  const pullRequest = pullRequestOf(event);
  if (pullRequest !== undefined) showPullRequest(pullRequest);
  const open = followWait(wait, event);
  if (open !== wait) {
    wait = open;
    actions.wait = wait;
  }
  if (['wait.ended', 'execution.ended', 'failover'].includes(event.type)) actions.settled();
  if (changesSummary(event.type)) scheduleSummary();
}

/** Shows, under the title, the pull request the execution opened (the latest, when it opened several). */
function showPullRequest(pullRequest: PullRequest): void {
  const line = byId('pull-request');
  line.replaceChildren(
    el('a', { href: pullRequest.url, id: 'pull-request-link' }, pullRequestLabel(pullRequest)),
    ' ',
    el('span', { class: 'muted' }, pullRequest.url),
  );
  line.hidden = false;
}

follow(0);

tabs.followHash();
await refreshSummary();
// The wait's countdown is to the minute; a second keeps it from lagging behind the clock.
setInterval(() => actions.render(), 1000);
