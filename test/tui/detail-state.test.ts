/**
 * The opened execution's pure reducers, pressed key by key: detail/state.ts (tabs, the Events
 * timeline's selection and filter, scrolling, the open record, the actions' prompts and requests,
 * `settleRequest`, the scopes of keys, `topLine`) and ui-state.ts's `reduce` with an execution open
 * (`q`, `?` and `Esc` there). No rendering: every press is a `KeyPress` as key-press.ts builds it.
 */
import { describe, expect, it } from 'vitest';
import {
  type DetailFacts,
  type DetailState,
  detailScopes,
  openDetail,
  reduceDetail,
  settleRequest,
  shownEvents,
  type TimelineEvent,
} from '../../src/tui/detail/state.js';
import { helpHeight, helpLines } from '../../src/tui/help.js';
import type { ListedExecution } from '../../src/tui/rows.js';
import { topLine } from '../../src/tui/scroll.js';
import { INITIAL_STATE, type PressEvent, reduce, scopesOf, type UiState } from '../../src/tui/ui-state.js';
import { duplicateKeys, type KeyPress } from '../../src/web/keys/dispatch.js';
import { DETAIL_KEYS, EVENTS_KEYS, GLOBAL_KEYS, SCROLL_KEYS } from '../../src/web/keys/keymap.js';
import type { EventRecord } from '../../src/web/records.js';
import { executionRecord } from './fake-service.js';

const EXECUTION = '01jf3k9x7q2m4n6p8r0s2t4v6w';

/** One record of the execution's stream, numbered as the stream numbers it. */
function event(
  id: number,
  fields: Pick<EventRecord, 'type' | 'data'> & Partial<Pick<EventRecord, 'attempt' | 'harness' | 'source'>>,
): TimelineEvent {
  const ts = new Date(Date.UTC(2025, 2, 1, 10, 0, id)).toISOString();
  return { id, record: { ts, execution: EXECUTION, source: 'executor', ...fields } };
}

/** The switch story, with what the harnesses said between: 1 3 4 5 6 are switch events, 2 and 7 messages. */
const STORY: readonly TimelineEvent[] = [
  event(1, {
    type: 'attempt.started',
    attempt: 1,
    harness: 'claude-code',
    data: { command: 'claude', simulated: false, handoff: false, timeLeftMs: 3_600_000, prompt: 'Add notes.' },
  }),
  event(2, {
    type: 'message',
    attempt: 1,
    harness: 'claude-code',
    source: 'harness',
    data: { text: 'I will add the notes file.' },
  }),
  event(3, { type: 'quota.exhausted', attempt: 1, harness: 'claude-code', data: {} }),
  event(4, {
    type: 'attempt.ended',
    attempt: 1,
    harness: 'claude-code',
    data: { outcome: 'quota_exhausted', exitCode: 1, signal: null, durationMs: 1000 },
  }),
  event(5, {
    type: 'failover',
    data: { from: 'claude-code', to: 'codex', reason: 'quota_exhausted', switchNumber: 1, maxSwitches: 2 },
  }),
  event(6, {
    type: 'attempt.started',
    attempt: 2,
    harness: 'codex',
    data: { command: 'codex', simulated: false, handoff: true, timeLeftMs: 3_000_000, prompt: 'Add notes.' },
  }),
  event(7, {
    type: 'message',
    attempt: 2,
    harness: 'codex',
    source: 'harness',
    data: { text: 'Checking the notes.' },
  }),
];

/** What the view knows of a running execution on codex with the story received; `overrides` change it. */
function facts(overrides: Partial<DetailFacts> = {}): DetailFacts {
  return {
    events: STORY,
    state: 'running',
    harness: 'codex',
    waitingFor: undefined,
    lines: 50,
    height: 10,
    ...overrides,
  };
}

/** The key press `key` names (`KeyboardEvent.key` names: `Enter`, `Escape`, `ArrowDown`, or a character). */
function press(key: string): KeyPress {
  return { key, ctrlKey: false, metaKey: false, altKey: false, inEditable: false };
}

/** What Ink reports as typed for `key`: the character itself; nothing for a named key. */
function inputOf(key: string): string {
  return key.length === 1 ? key : '';
}

/** The state after pressing `keys` in order; fails if one of them leaves the execution. */
function pressAll(state: DetailState, keys: readonly string[], known: DetailFacts = facts()): DetailState {
  let current = state;
  for (const key of keys) {
    const next = reduceDetail(current, press(key), inputOf(key), known);
    if (next === 'close') throw new Error(`${key} closed the execution`);
    current = next;
  }
  return current;
}

/** Each character of `text` as a press. */
const typing = (text: string): string[] => [...text];

/** The state on the Events tab after `keys`. */
function onEvents(keys: readonly string[] = [], known: DetailFacts = facts()): DetailState {
  return pressAll(openDetail(EXECUTION), ['2', ...keys], known);
}

describe('reduceDetail: tabs', () => {
  it('opens on the Summary, and 1–4 choose the tab', () => {
    const opened = openDetail(EXECUTION);
    expect(opened.tab).toBe('summary');
    expect(pressAll(opened, ['2']).tab).toBe('events');
    expect(pressAll(opened, ['3']).tab).toBe('transcript');
    expect(pressAll(opened, ['4']).tab).toBe('changes');
    expect(pressAll(opened, ['4', '1']).tab).toBe('summary');
  });

  it('close an opened record', () => {
    const open = onEvents(['n', 'Enter']);
    expect(open.openEvent).toBe(1);
    const transcript = pressAll(open, ['3']);
    expect(transcript.tab).toBe('transcript');
    expect(transcript.openEvent).toBeUndefined();
    expect(pressAll(open, ['2']).openEvent).toBeUndefined();
  });
});

describe('reduceDetail: the Events timeline', () => {
  it('selects nothing at first; j takes the first record, k the newest, g and G the ends', () => {
    expect(onEvents().selectedEvent).toBeUndefined();
    expect(onEvents(['j']).selectedEvent).toBe(1);
    expect(onEvents(['k']).selectedEvent).toBe(7);
    expect(onEvents(['j', 'j', 'j']).selectedEvent).toBe(3);
    expect(onEvents(['G', 'k', 'k']).selectedEvent).toBe(5);
    expect(onEvents(['G', 'j']).selectedEvent).toBe(7);
    expect(onEvents(['g', 'k']).selectedEvent).toBe(1);
    expect(onEvents(['j', 'j', 'j', 'g']).selectedEvent).toBe(1);
    expect(onEvents(['G']).selectedEvent).toBe(7);
    expect(onEvents(['ArrowDown', 'ArrowDown', 'ArrowUp']).selectedEvent).toBe(1);
  });

  it('steps with n through the switch story, past the messages, and N back', () => {
    const seen: (number | undefined)[] = [];
    let state = onEvents();
    for (let step = 0; step < 6; step += 1) {
      state = pressAll(state, ['n']);
      seen.push(state.selectedEvent);
    }
    // attempt.started, quota.exhausted, attempt.ended, failover, attempt.started; then it stays.
    expect(seen).toEqual([1, 3, 4, 5, 6, 6]);
    expect(pressAll(state, ['N']).selectedEvent).toBe(5);
    expect(pressAll(state, ['j', 'N']).selectedEvent).toBe(6);
    expect(onEvents(['N']).selectedEvent).toBe(6);
  });

  it('keeps the selection on its record as more records arrive', () => {
    const selected = onEvents(['n', 'n', 'n', 'n']);
    expect(selected.selectedEvent).toBe(5);
    const more = facts({
      events: [
        ...STORY,
        event(8, { type: 'message', attempt: 2, harness: 'codex', source: 'harness', data: { text: 'Done.' } }),
        event(9, { type: 'warning', data: { message: 'late' } }),
      ],
    });
    const moved = pressAll(selected, ['j'], more);
    expect(moved.selectedEvent).toBe(6);
    expect(pressAll(moved, ['G'], more).selectedEvent).toBe(9);
    // With nothing selected, k takes the newest of what arrived.
    expect(onEvents(['k'], more).selectedEvent).toBe(9);
  });

  it('opens the selected record with Enter and closes it with Esc, the selection kept', () => {
    expect(onEvents(['Enter']).openEvent).toBeUndefined();
    const scrolled = pressAll(onEvents(['n', 'n', 'Enter']), ['j', 'j']);
    expect(scrolled.openEvent).toBe(3);
    expect(scrolled.scroll.record).toBe(2);
    // j scrolled the record: the selection did not move.
    expect(scrolled.selectedEvent).toBe(3);
    const closed = pressAll(scrolled, ['Escape']);
    expect(closed.openEvent).toBeUndefined();
    expect(closed.selectedEvent).toBe(3);
    expect(closed.tab).toBe('events');
    const reopened = pressAll(closed, ['j', 'Enter']);
    expect(reopened.openEvent).toBe(4);
    expect(reopened.scroll.record).toBe(0);
  });

  it('edits the filter with /: typing, Backspace, Enter keeps it, and letters are text meanwhile', () => {
    const editing = onEvents(['j', '/', ...typing('codexj')]);
    expect(editing.editing).toBe(true);
    expect(editing.filter).toBe('codexj');
    expect(editing.selectedEvent).toBeUndefined();
    expect(editing.tab).toBe('events');
    const kept = pressAll(editing, ['Backspace', 'Enter']);
    expect(kept.editing).toBe(false);
    expect(kept.filter).toBe('codex');
    const left = onEvents(['/', ...typing('quota'), 'Escape']);
    expect(left.editing).toBe(false);
    expect(left.filter).toBe('quota');
  });

  it('hides what the filter does not match, and n/N move among the records shown', () => {
    const filtered = onEvents(['/', ...typing('codex'), 'Enter']);
    expect(shownEvents(filtered, STORY).map((shown) => shown.id)).toEqual([5, 6, 7]);
    expect(pressAll(filtered, ['n']).selectedEvent).toBe(5);
    expect(pressAll(filtered, ['n', 'n']).selectedEvent).toBe(6);
    // The message after it is no switch event: n stays.
    expect(pressAll(filtered, ['n', 'n', 'n']).selectedEvent).toBe(6);
    // The hidden records are skipped: N from the failover stays on it, g goes to it.
    expect(pressAll(filtered, ['n', 'N']).selectedEvent).toBe(5);
    expect(pressAll(filtered, ['G', 'N', 'N']).selectedEvent).toBe(5);
    expect(pressAll(filtered, ['g']).selectedEvent).toBe(5);
    expect(pressAll(filtered, ['k']).selectedEvent).toBe(7);
  });

  it('clears the filter with Esc, then leaves the execution with Esc', () => {
    const filtered = onEvents(['/', ...typing('codex'), 'Enter', 'j']);
    expect(filtered.selectedEvent).toBe(5);
    const cleared = reduceDetail(filtered, press('Escape'), '', facts());
    expect(cleared).not.toBe('close');
    expect(cleared).toMatchObject({ filter: '', selectedEvent: undefined, editing: false, tab: 'events' });
    expect(reduceDetail(cleared as DetailState, press('Escape'), '', facts())).toBe('close');
    expect(reduceDetail(openDetail(EXECUTION), press('Escape'), '', facts())).toBe('close');
  });

  it('opens the message prompt with / on another tab, as the Workbench focuses its send box', () => {
    for (const tab of ['1', '3', '4']) {
      const state = pressAll(openDetail(EXECUTION), [tab, '/']);
      expect(state.prompt).toEqual({ kind: 'message', text: '' });
      expect(state.editing).toBe(false);
    }
  });
});

describe('reduceDetail: scrolling', () => {
  const long = facts({ lines: 50, height: 10 });

  it('scrolls the Summary a line, a page, to the top and the bottom, clamped', () => {
    const scrolledTo = (keys: readonly string[]) => pressAll(openDetail(EXECUTION), keys, long).scroll.summary;
    expect(scrolledTo(['j'])).toBe(1);
    expect(scrolledTo(['ArrowDown', 'ArrowDown', 'k'])).toBe(1);
    expect(scrolledTo(['k'])).toBe(0);
    expect(scrolledTo([' '])).toBe(9);
    expect(scrolledTo(['PageDown', 'PageDown'])).toBe(18);
    expect(scrolledTo(['PageDown', 'PageDown', 'b'])).toBe(9);
    expect(scrolledTo(['PageDown', 'PageUp', 'PageUp'])).toBe(0);
    expect(scrolledTo(['G'])).toBe('end');
    expect(scrolledTo(['G', 'k'])).toBe(39);
    expect(scrolledTo(['G', 'g'])).toBe(0);
  });

  it('reaches the end by scrolling down onto the bottom', () => {
    const scrolledTo = (keys: readonly string[]) => pressAll(openDetail(EXECUTION), keys, long).scroll.summary;
    expect(scrolledTo(['G', 'k', 'k', 'j'])).toBe(39);
    expect(scrolledTo(['G', 'k', 'j'])).toBe('end');
    expect(scrolledTo([' ', ' ', ' ', ' '])).toBe(36);
    expect(scrolledTo([' ', ' ', ' ', ' ', ' '])).toBe('end');
    // A text shorter than the view is at its end from the first line down.
    expect(pressAll(openDetail(EXECUTION), ['j'], facts({ lines: 5, height: 10 })).scroll.summary).toBe('end');
  });

  it('opens the Transcript at its end, and each text keeps its own place', () => {
    expect(openDetail(EXECUTION).scroll.transcript).toBe('end');
    const state = pressAll(openDetail(EXECUTION), ['j', 'j', '3', 'k', '4', ' '], long);
    expect(state.scroll).toEqual({ summary: 2, transcript: 39, changes: 9, record: 0 });
  });

  it('scrolls an open record, and leaves the timeline alone when none is', () => {
    const record = onEvents(['G', 'Enter', 'G', 'k'], long);
    expect(record.scroll.record).toBe(39);
    expect(record.scroll.summary).toBe(0);
    const timeline = onEvents(['j', 'j'], long);
    expect(timeline.scroll).toEqual(openDetail(EXECUTION).scroll);
  });
});

describe('reduceDetail: actions', () => {
  it('C on an ended execution says so and asks nothing', () => {
    const state = pressAll(openDetail(EXECUTION), ['C'], facts({ state: 'succeeded' }));
    expect(state.prompt).toBeUndefined();
    expect(state.notice).toBe('The execution is over: there is nothing to cancel.');
    expect(state.request).toBeUndefined();
  });

  it('C on a running one asks; Enter does nothing, n and Esc close, y requests the cancel', () => {
    // A notice left by an earlier key is cleared when the prompt opens.
    const asking = pressAll(openDetail(EXECUTION), ['S'], facts({ state: 'succeeded' }));
    expect(asking.notice).toBe('Only a running or waiting execution can switch harness.');
    const confirm = pressAll(asking, ['C']);
    expect(confirm.prompt).toEqual({ kind: 'confirm-cancel' });
    expect(confirm.notice).toBeUndefined();
    expect(pressAll(confirm, ['Enter'])).toEqual(confirm);
    expect(pressAll(confirm, ['n']).prompt).toBeUndefined();
    expect(pressAll(confirm, ['Escape']).prompt).toBeUndefined();
    expect(pressAll(confirm, ['n']).request).toBeUndefined();
    const yes = pressAll(confirm, ['y']);
    expect(yes.prompt).toBeUndefined();
    expect(yes.request).toEqual({ action: 'cancel', seq: 1 });
    expect(yes.notice).toBe('Canceling…');
    const again = pressAll(yes, ['C', 'Y']);
    expect(again.request).toEqual({ action: 'cancel', seq: 2 });
  });

  it('R needs a waiting execution and the harness it waits for', () => {
    const refused = 'The execution is not waiting for a quota reset: there is nothing to resume.';
    expect(pressAll(openDetail(EXECUTION), ['R']).notice).toBe(refused);
    expect(pressAll(openDetail(EXECUTION), ['R'], facts({ state: 'waiting' })).notice).toBe(refused);
    const waiting = facts({ state: 'waiting', waitingFor: 'claude-code' });
    const confirm = pressAll(openDetail(EXECUTION), ['R'], waiting);
    expect(confirm.prompt).toEqual({ kind: 'confirm-resume', harness: 'claude-code' });
    const yes = pressAll(confirm, ['y'], waiting);
    expect(yes.request).toEqual({ action: 'resume', seq: 1 });
    expect(yes.notice).toBe('Resuming…');
  });

  it('S offers the first harness not running, ←/→ cycle, the fields move, Enter switches with what was typed', () => {
    const onCodex = pressAll(openDetail(EXECUTION), ['S']);
    expect(onCodex.prompt).toEqual({ kind: 'switch', field: 'harness', harness: 'claude-code', model: '', reason: '' });
    const onClaude = pressAll(openDetail(EXECUTION), ['S'], facts({ harness: 'claude-code' }));
    expect(onClaude.prompt).toMatchObject({ harness: 'codex' });
    expect(pressAll(onClaude, ['ArrowRight']).prompt).toMatchObject({ harness: 'gemini' });
    expect(pressAll(onClaude, ['ArrowRight', 'ArrowRight', 'ArrowRight']).prompt).toMatchObject({
      harness: 'claude-code',
    });
    expect(pressAll(onClaude, ['ArrowLeft', 'ArrowLeft']).prompt).toMatchObject({ harness: 'opencode' });
    // Letters on the harness field are not typed anywhere.
    expect(pressAll(onClaude, ['x']).prompt).toEqual(onClaude.prompt);

    expect(pressAll(onClaude, ['ArrowDown']).prompt).toMatchObject({ field: 'model' });
    expect(pressAll(onClaude, ['Tab', 'Tab']).prompt).toMatchObject({ field: 'reason' });
    expect(pressAll(onClaude, ['ArrowUp']).prompt).toMatchObject({ field: 'reason' });
    expect(pressAll(onClaude, ['Tab', 'Tab', 'Tab']).prompt).toMatchObject({ field: 'harness' });

    const filled = pressAll(onClaude, [
      'ArrowRight',
      'ArrowDown',
      ...typing(' gemini-2.5-pro '),
      'Tab',
      ...typing(' too slowx'),
      'Backspace',
    ]);
    expect(filled.prompt).toEqual({
      kind: 'switch',
      field: 'reason',
      harness: 'gemini',
      model: ' gemini-2.5-pro ',
      reason: ' too slow',
    });
    const switched = pressAll(filled, ['Enter']);
    expect(switched.prompt).toBeUndefined();
    expect(switched.request).toStrictEqual({
      action: 'switch',
      to: 'gemini',
      model: 'gemini-2.5-pro',
      reason: 'too slow',
      seq: 1,
    });
    expect(switched.notice).toBe('Switching to gemini…');
    const bare = pressAll(onClaude, ['ArrowDown', ...typing('   '), 'Enter']);
    expect(bare.request).toStrictEqual({ action: 'switch', to: 'codex', seq: 1 });
  });

  it('m opens the message box: Enter on nothing does nothing, Enter on text requests the send', () => {
    const box = pressAll(openDetail(EXECUTION), ['m']);
    expect(box.prompt).toEqual({ kind: 'message', text: '' });
    expect(pressAll(box, ['Enter'])).toEqual(box);
    expect(pressAll(box, [...typing('   '), 'Enter']).prompt).toEqual({ kind: 'message', text: '   ' });
    const sent = pressAll(box, [...typing(' Also mention the date. '), 'Enter']);
    expect(sent.prompt).toBeUndefined();
    expect(sent.request).toEqual({ action: 'send', text: 'Also mention the date.', seq: 1 });
    expect(sent.notice).toBe('Sending…');
    expect(pressAll(box, ['Escape']).prompt).toBeUndefined();
  });

  it('takes the keys typed into a prompt as text, never as shortcuts', () => {
    const typed = pressAll(openDetail(EXECUTION), ['m', ...typing('q?1/2jGCnS')]);
    expect(typed.prompt).toEqual({ kind: 'message', text: 'q?1/2jGCnS' });
    expect(typed.tab).toBe('summary');
    expect(typed.scroll).toEqual(openDetail(EXECUTION).scroll);
    expect(typed.request).toBeUndefined();
    const model = pressAll(openDetail(EXECUTION), ['S', 'ArrowDown', ...typing('q1')]);
    expect(model.prompt).toMatchObject({ model: 'q1' });
    expect(model.tab).toBe('summary');
  });
});

describe('settleRequest', () => {
  const sent = pressAll(openDetail(EXECUTION), ['m', 'h', 'i', 'Enter', 'm', 'y', 'o', 'Enter']);

  it('ignores the answer to an older request', () => {
    expect(sent.request).toEqual({ action: 'send', text: 'yo', seq: 2 });
    expect(settleRequest(sent, 1, { notice: 'Queued (turn t1)…', awaitedTurn: 't1' })).toBe(sent);
  });

  it('sets the notice and the awaited turn; the next request forgets the turn', () => {
    const settled = settleRequest(sent, 2, { notice: 'Queued (turn t2)…', awaitedTurn: 't2' });
    expect(settled.notice).toBe('Queued (turn t2)…');
    expect(settled.awaitedTurn).toBe('t2');
    expect(settleRequest(settled, 2, { notice: 'Cancel requested.' }).awaitedTurn).toBeUndefined();
    const next = pressAll(settled, ['C', 'y']);
    expect(next.request).toEqual({ action: 'cancel', seq: 3 });
    expect(next.awaitedTurn).toBeUndefined();
    expect(next.notice).toBe('Canceling…');
  });
});

describe('reduce, with an execution open', () => {
  const rows: ListedExecution[] = [
    { ...executionRecord({ id: '01jf3kaaaa2m4n6p8r0s2t4v6y', taskName: 'add-search' }), attempts: [] },
    { ...executionRecord({ id: EXECUTION, taskName: 'fix-login', currentHarness: 'codex' }), attempts: [] },
  ];

  function send(state: UiState, keys: readonly string[]): UiState {
    let current = state;
    for (const key of keys) {
      const event: PressEvent = { press: press(key), input: inputOf(key), rows: { executions: rows }, detail: facts() };
      current = reduce(current, event);
    }
    return current;
  }

  /** The list with its second row opened. */
  const opened = send(INITIAL_STATE, ['j', 'j', 'Enter']);

  it('opens the selected row', () => {
    expect(opened.opened?.row.id).toBe(EXECUTION);
    expect(opened.opened?.view).toEqual(openDetail(EXECUTION));
  });

  it('does not quit on q while a prompt or the filter takes the typing, and does otherwise', () => {
    const prompt = send(opened, ['m', 'q']);
    expect(prompt.quit).toBe(false);
    expect(prompt.opened?.view.prompt).toEqual({ kind: 'message', text: 'q' });
    const filter = send(opened, ['2', '/', 'q']);
    expect(filter.quit).toBe(false);
    expect(filter.opened?.view.filter).toBe('q');
    expect(send(filter, ['Enter', 'q']).quit).toBe(true);
    expect(send(opened, ['q']).quit).toBe(true);
  });

  it('opens the help with the detail’s scopes on ?, and closes it with Esc or ?', () => {
    const help = send(opened, ['2', '?']);
    expect(help.help).toBe(true);
    expect(scopesOf(help)).toEqual(detailScopes(help.opened?.view as DetailState));
    expect(scopesOf(help).map((scope) => scope.title)).toEqual(['Events', 'This execution', 'Everywhere', 'Terminal']);
    // Keys wait while the help is shown.
    expect(send(help, ['1']).opened?.view.tab).toBe('events');
    const closed = send(help, ['Escape']);
    expect(closed.help).toBe(false);
    expect(closed.opened?.view.tab).toBe('events');
    expect(send(help, ['?']).help).toBe(false);
    // A ? typed into a prompt is text.
    const typed = send(opened, ['m', '?']);
    expect(typed.help).toBe(false);
    expect(typed.opened?.view.prompt).toEqual({ kind: 'message', text: '?' });
  });

  it('scrolls a help longer than the terminal with the scroll keys', () => {
    const help = send(opened, ['2', '?']);
    const lines = helpLines(scopesOf(help)).length;
    expect(lines).toBeGreaterThan(helpHeight(24));
    expect(send(help, ['j', 'j']).helpScroll).toBe(2);
    expect(send(help, ['G']).helpScroll).toBe('end');
    expect(send(help, ['G', 'g']).helpScroll).toBe(0);
    expect(send(help, ['G', 'k']).helpScroll).toBe(lines - helpHeight(24) - 1);
    // Closed and opened again, it starts at the top.
    expect(send(help, ['G', '?', '?']).helpScroll).toBe(0);
  });

  it('takes a chunk of typed keys as each of its keys, except in a message', () => {
    const chunk = (state: UiState, input: string): UiState =>
      reduce(state, { press: press(input), input, rows: { executions: rows }, detail: facts() });
    // `/`, then "add" and Enter and j in one input: the filter keeps "add", and j moves on the list.
    const filtered = chunk(send(INITIAL_STATE, ['/']), 'add\rj');
    expect(filtered.filter).toBe('add');
    expect(filtered.editing).toBe(false);
    expect(filtered.selectedIds).toEqual({ executions: '01jf3kaaaa2m4n6p8r0s2t4v6y' });
    // In the Events filter alike.
    const events = chunk(send(opened, ['2', '/']), 'codex\r');
    expect(events.opened?.view.filter).toBe('codex');
    expect(events.opened?.view.editing).toBe(false);
    // A message keeps its line break, as a space, and is not sent by it.
    const message = chunk(send(opened, ['m']), 'one\rtwo');
    expect(message.opened?.view.prompt).toEqual({ kind: 'message', text: 'one two' });
    expect(message.opened?.view.request).toBeUndefined();
  });

  it('goes back to the list with Esc, its selection kept', () => {
    const back = send(opened, ['2', 'j', 'Escape']);
    expect(back.opened).toBeUndefined();
    expect(back.screen).toBe('executions');
    expect(back.selectedIds).toEqual({ executions: EXECUTION });
    expect(send(back, ['k']).selectedIds).toEqual({ executions: rows[0]?.id });
  });
});

describe('detailScopes', () => {
  const events = onEvents();
  const record = onEvents(['j', 'Enter']);
  const summary = openDetail(EXECUTION);

  it('has the Events scope on the Events tab, Scrolling elsewhere and on an open record', () => {
    expect(detailScopes(events)[0]).toEqual({ title: 'Events', keymap: EVENTS_KEYS });
    expect(detailScopes(record)[0]).toEqual({ title: 'Scrolling', keymap: SCROLL_KEYS });
    for (const tab of ['1', '3', '4']) {
      expect(detailScopes(pressAll(summary, [tab]))[0]).toEqual({ title: 'Scrolling', keymap: SCROLL_KEYS });
    }
    expect(detailScopes(summary).slice(1, 3)).toEqual([
      { title: 'This execution', keymap: DETAIL_KEYS },
      { title: 'Everywhere', keymap: GLOBAL_KEYS },
    ]);
  });

  it('lists q but not Tab among the terminal’s keys', () => {
    const terminal = detailScopes(summary).find((scope) => scope.title === 'Terminal');
    expect(terminal?.keymap.map((binding) => binding.action)).toEqual(['app:quit']);
    expect(terminal?.keymap.flatMap((binding) => binding.keys)).toEqual(['q']);
  });

  it('binds each key once across the scopes of each view', () => {
    for (const state of [events, record, summary]) {
      expect(duplicateKeys(detailScopes(state).flatMap((scope) => scope.keymap))).toEqual([]);
    }
  });
});

describe('topLine', () => {
  it('is the bottom at the end, and clamps a line between the top and the bottom', () => {
    expect(topLine('end', 50, 10)).toBe(40);
    expect(topLine(7, 50, 10)).toBe(7);
    expect(topLine(45, 50, 10)).toBe(40);
    expect(topLine(-3, 50, 10)).toBe(0);
    expect(topLine('end', 5, 10)).toBe(0);
    expect(topLine(3, 5, 10)).toBe(0);
  });
});
