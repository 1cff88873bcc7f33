import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { helpLines } from '../../src/tui/help.js';
import { keyPressOf } from '../../src/tui/key-press.js';
import { formatAge, type ListedExecution, listScopes, matchesFilter } from '../../src/tui/rows.js';
import { matchesRunFilter, runViewLines, standoutCount } from '../../src/tui/run-rows.js';
import { colorEnabled, stateColor } from '../../src/tui/theme.js';
import { INITIAL_STATE, type PressEvent, reduce, type UiState } from '../../src/tui/ui-state.js';
import { dispatch, duplicateKeys } from '../../src/web/keys/dispatch.js';
import { GLOBAL_KEYS, LIST_KEYS, RUN_VIEW_KEYS, TERMINAL_KEYS } from '../../src/web/keys/keymap.js';
import { executionRecord, workflowRun } from './fake-service.js';

/** Ink's `Key` with nothing pressed but what `pressed` says. */
function key(pressed: Partial<Key> = {}): Key {
  return {
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...pressed,
  };
}

describe('keyPressOf', () => {
  it('names Ink’s named keys as KeyboardEvent.key does', () => {
    expect(keyPressOf('', key({ downArrow: true }), false).key).toBe('ArrowDown');
    expect(keyPressOf('', key({ upArrow: true }), false).key).toBe('ArrowUp');
    expect(keyPressOf('', key({ return: true }), false).key).toBe('Enter');
    expect(keyPressOf('', key({ tab: true }), false).key).toBe('Tab');
    expect(keyPressOf('G', key({ shift: true }), false).key).toBe('G');
  });

  it('does not take the meta Ink reports on a lone Escape for a modifier', () => {
    const press = keyPressOf('', key({ escape: true, meta: true }), false);
    expect(press).toEqual({ key: 'Escape', ctrlKey: false, metaKey: false, altKey: false, inEditable: false });
    expect(dispatch([GLOBAL_KEYS], press)).toBe('back');
  });

  it('keeps Ctrl and Meta, so a press with them is no shortcut', () => {
    expect(dispatch([LIST_KEYS], keyPressOf('j', key({ ctrl: true }), false))).toBeUndefined();
    expect(dispatch([LIST_KEYS], keyPressOf('j', key({ meta: true }), false))).toBeUndefined();
  });

  it('feeds the list screens’ scopes: Workbench keys and the terminal’s own', () => {
    const scopes = listScopes('executions').map((scope) => scope.keymap);
    expect(dispatch(scopes, keyPressOf('', key({ downArrow: true }), false))).toBe('row:next');
    expect(dispatch(scopes, keyPressOf('', key({ tab: true }), false))).toBe('screen:next');
    expect(dispatch(scopes, keyPressOf('q', key(), false))).toBe('app:quit');
    expect(dispatch(scopes, keyPressOf('q', key(), true))).toBeUndefined();
  });
});

describe('the terminal keymap', () => {
  it('binds each key once, and none a list screen already binds', () => {
    expect(duplicateKeys(TERMINAL_KEYS)).toEqual([]);
    expect(duplicateKeys([...LIST_KEYS, ...GLOBAL_KEYS, ...TERMINAL_KEYS])).toEqual([]);
    expect(duplicateKeys(RUN_VIEW_KEYS)).toEqual([]);
  });
});

describe('helpLines', () => {
  it('has one line per binding, with the keymap’s description word for word', () => {
    const lines = helpLines(listScopes('history'));
    for (const binding of [...LIST_KEYS, ...GLOBAL_KEYS, ...TERMINAL_KEYS]) {
      expect(lines.filter((line) => line.endsWith(`  ${binding.description}`))).toHaveLength(1);
    }
    expect(lines).toContain('History');
    expect(lines.find((line) => line.includes('Next row'))).toMatch(/^ {2}j \/ ↓ +Next row$/);
  });
});

describe('rows', () => {
  const row: ListedExecution = {
    ...executionRecord({ id: '01jf3k9x7q2m4n6p8r0s2t4v6w', taskName: 'Fix-Login' }),
    attempts: [],
  };

  it('filters by a part of the task name or the start of the id, case ignored', () => {
    expect(matchesFilter(row, '')).toBe(true);
    expect(matchesFilter(row, 'login')).toBe(true);
    expect(matchesFilter(row, '01JF3K')).toBe(true);
    expect(matchesFilter(row, 'f3k9')).toBe(false);
    expect(matchesFilter(row, 'deploy')).toBe(false);
  });

  it('filters by the start of the state or of a harness the execution ran on', () => {
    const ran: ListedExecution = {
      ...executionRecord({ id: '01jf3k9x7q2m4n6p8r0s2t4v6w', taskName: 'notes', state: 'failed' }),
      attempts: [
        { execution: '01jf3k9x7q2m4n6p8r0s2t4v6w', number: 1, harness: 'claude-code', simulated: true, startedAt: '' },
        { execution: '01jf3k9x7q2m4n6p8r0s2t4v6w', number: 2, harness: 'codex', simulated: true, startedAt: '' },
      ],
    };
    expect(matchesFilter(ran, 'fail')).toBe(true);
    expect(matchesFilter(ran, 'Claude')).toBe(true);
    expect(matchesFilter(ran, 'codex')).toBe(true);
    expect(matchesFilter(ran, 'gemini')).toBe(false);
    expect(matchesFilter(ran, 'succeeded')).toBe(false);
    expect(matchesFilter({ ...ran, attempts: [], currentHarness: 'opencode' }, 'open')).toBe(true);
  });

  it('writes an age in its largest whole unit', () => {
    expect([
      formatAge(-5),
      formatAge(9_999),
      formatAge(125_000),
      formatAge(7_300_000),
      formatAge(90 * 86_400_000),
    ]).toEqual(['0s', '9s', '2m', '2h', '90d']);
  });
});

describe('colorEnabled', () => {
  it('is off when NO_COLOR is set to anything but the empty string', () => {
    expect(colorEnabled({})).toBe(true);
    expect(colorEnabled({ NO_COLOR: '' })).toBe(true);
    expect(colorEnabled({ NO_COLOR: '1' })).toBe(false);
    expect(stateColor('running', false)).toBeUndefined();
    expect(stateColor('running', true)).toBe('green');
  });
});

describe('the Workflows screen', () => {
  const waiting = workflowRun({
    id: '01jf5aaaaa2m4n6p8r0s2t4v6w',
    workflow: 'statements',
    state: 'waiting',
    message: '3 item(s) await review',
  });
  const gone = workflowRun({
    id: '01jf4bbbbb2m4n6p8r0s2t4v6x',
    workflow: 'digest',
    state: 'interrupted',
    owner: { pid: 7, host: 'h', startTime: '1', since: '2026-12-01T00:00:00.000Z', alive: false },
  });
  const rows: PressEvent['rows'] = { workflows: [waiting, gone] };
  const press = (state: UiState, key: string): UiState =>
    reduce(state, {
      press: { key, ctrlKey: false, metaKey: false, altKey: false, inEditable: false },
      input: key,
      rows,
      run: { lines: 30, height: 10 },
    });

  it('is the third screen of Tab, and Tab goes round', () => {
    const screens = [INITIAL_STATE];
    for (let at = 0; at < 3; at += 1) screens.push(press(screens.at(-1) ?? INITIAL_STATE, 'Tab'));
    expect(screens.map((state) => state.screen)).toEqual(['executions', 'history', 'workflows', 'executions']);
  });

  it('opens the selected run with Enter; there j scrolls, Tab does nothing, Esc goes back and q quits', () => {
    let state = press(press(press({ ...INITIAL_STATE, screen: 'workflows' }, 'j'), 'j'), 'Enter');
    expect(state.run?.row.id).toBe(gone.id);
    state = press(state, 'j');
    expect(state.run?.scroll).toBe(1);
    expect(press(state, 'Tab')).toBe(state);
    expect(press(state, 'Escape').run).toBeUndefined();
    expect(press(state, 'q').quit).toBe(true);
  });

  it('filters by workflow, id prefix, state or words of why, and counts who wants someone', () => {
    expect([waiting, gone].filter((run) => matchesRunFilter(run, 'await')).map((run) => run.workflow)).toEqual([
      'statements',
    ]);
    expect([waiting, gone].filter((run) => matchesRunFilter(run, 'inter')).map((run) => run.workflow)).toEqual([
      'digest',
    ]);
    expect([waiting, gone].filter((run) => matchesRunFilter(run, '01jf4b')).map((run) => run.workflow)).toEqual([
      'digest',
    ]);
    expect(standoutCount([waiting, gone, waiting])).toBe('2 waiting · 1 interrupted');
    expect(standoutCount([])).toBe('');
  });

  it('shows a run in lines no wider than asked, control sequences dropped', () => {
    const run = { ...waiting, message: `evil \u001B]0;title\u0007 message ${'long '.repeat(30)}` };
    const lines = runViewLines(
      run,
      [{ step: 'draft', done: 3, reused: 1, failed: 2 }],
      'http://127.0.0.1:7878',
      40,
      Date.now(),
    );
    for (const line of lines) expect([...line.text].length, line.text).toBeLessThanOrEqual(40);
    expect(lines.map((line) => line.text).join('\n')).not.toContain('\u001B');
    expect(lines.map((line) => line.text)).toContain('  draft: 3 done (1 reused), 2 failed');
    // 40 columns cut the review URL in two: each half on its own line, whole when joined.
    expect(lines.map((line) => line.text.trim()).join('')).toContain(
      'http://127.0.0.1:7878/workflows/01jf5aaaaa2m4n6p8r0s2t4v6w',
    );
  });
});
