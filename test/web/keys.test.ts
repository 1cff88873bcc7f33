import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/schema.js';
import { dispatch, duplicateKeys, helpSections, type KeyPress } from '../../src/web/keys/dispatch.js';
import {
  type Action,
  DETAIL_KEYS,
  EVENTS_KEYS,
  EXECUTIONS_KEYS,
  GLOBAL_KEYS,
  type Keymap,
  LIST_KEYS,
  REVIEW_KEYS,
  SCROLL_KEYS,
  TERMINAL_KEYS,
} from '../../src/web/keys/keymap.js';
import { first, isSwitchRelated, last, nextMatching, step } from '../../src/web/keys/timeline.js';

function press(key: string, extra: Partial<KeyPress> = {}): KeyPress {
  return { key, ctrlKey: false, metaKey: false, altKey: false, inEditable: false, ...extra };
}

const EVENTS_PAGE = [EVENTS_KEYS, DETAIL_KEYS, GLOBAL_KEYS] as const;
const DETAIL_PAGE = [DETAIL_KEYS, GLOBAL_KEYS] as const;
const LIST_PAGE = [LIST_KEYS, GLOBAL_KEYS] as const;
/** The terminal UI's execution view: its text scrolls, so SCROLL_KEYS stand where the Events keys would. */
const TERMINAL_DETAIL = [SCROLL_KEYS, DETAIL_KEYS, TERMINAL_KEYS, GLOBAL_KEYS] as const;

describe('the keymaps', () => {
  it('bind every global key the Workbench promises', () => {
    const expected: [string, Action][] = [
      ['?', 'help:toggle'],
      ['Escape', 'back'],
      ['/', 'filter:focus'],
      ['1', 'tab:summary'],
      ['2', 'tab:events'],
      ['3', 'tab:transcript'],
      ['4', 'tab:changes'],
    ];
    for (const [key, action] of expected) expect(dispatch([GLOBAL_KEYS], press(key)), key).toBe(action);
  });

  it('bind every list key', () => {
    const expected: [string, Action][] = [
      ['j', 'row:next'],
      ['ArrowDown', 'row:next'],
      ['k', 'row:previous'],
      ['ArrowUp', 'row:previous'],
      ['Enter', 'row:open'],
      ['g', 'row:first'],
      ['G', 'row:last'],
    ];
    for (const [key, action] of expected) expect(dispatch(LIST_PAGE, press(key)), key).toBe(action);
  });

  it('bind every Events-tab key', () => {
    const expected: [string, Action][] = [
      ['j', 'event:next'],
      ['ArrowDown', 'event:next'],
      ['k', 'event:previous'],
      ['ArrowUp', 'event:previous'],
      ['Enter', 'event:open'],
      ['g', 'event:first'],
      ['G', 'event:last'],
      ['n', 'event:next-switch'],
      ['N', 'event:previous-switch'],
    ];
    for (const [key, action] of expected) expect(dispatch(EVENTS_PAGE, press(key)), key).toBe(action);
  });

  it("bind R, S, C and m to the execution's actions on every tab of the detail page, and nowhere else", () => {
    const expected: [string, Action][] = [
      ['R', 'execution:resume'],
      ['S', 'execution:switch'],
      ['C', 'execution:cancel'],
      ['m', 'execution:message'],
    ];
    for (const [key, action] of expected) {
      expect(dispatch(DETAIL_PAGE, press(key)), key).toBe(action);
      expect(dispatch(EVENTS_PAGE, press(key)), key).toBe(action);
      expect(dispatch(TERMINAL_DETAIL, press(key)), key).toBe(action);
      expect(dispatch(LIST_PAGE, press(key)), key).toBeUndefined();
      expect(dispatch(DETAIL_PAGE, press(key, { inEditable: true })), key).toBeUndefined();
    }
    // Only the capitals act: a lower-case r, s or c is no shortcut, and Shift+m is not m.
    for (const key of ['r', 's', 'c', 'M']) expect(dispatch(EVENTS_PAGE, press(key)), key).toBeUndefined();
  });

  it('bind every terminal scroll key', () => {
    const expected: [string, Action][] = [
      ['j', 'scroll:down'],
      ['ArrowDown', 'scroll:down'],
      ['k', 'scroll:up'],
      ['ArrowUp', 'scroll:up'],
      [' ', 'scroll:page-down'],
      ['PageDown', 'scroll:page-down'],
      ['b', 'scroll:page-up'],
      ['PageUp', 'scroll:page-up'],
      ['g', 'scroll:top'],
      ['G', 'scroll:bottom'],
    ];
    for (const [key, action] of expected) expect(dispatch(TERMINAL_DETAIL, press(key)), key).toBe(action);
  });

  it('give no key two meanings within a keymap, nor let a page scope hide a global key', () => {
    for (const keymap of [GLOBAL_KEYS, LIST_KEYS, EVENTS_KEYS, DETAIL_KEYS, REVIEW_KEYS, TERMINAL_KEYS, SCROLL_KEYS]) {
      expect(duplicateKeys(keymap)).toEqual([]);
    }
    expect(duplicateKeys([...LIST_KEYS, ...EXECUTIONS_KEYS, ...GLOBAL_KEYS])).toEqual([]);
    expect(duplicateKeys([...DETAIL_KEYS, ...GLOBAL_KEYS])).toEqual([]);
    expect(duplicateKeys([...REVIEW_KEYS, ...GLOBAL_KEYS])).toEqual([]);
    expect(duplicateKeys([...EVENTS_KEYS, ...DETAIL_KEYS, ...GLOBAL_KEYS])).toEqual([]);
    expect(duplicateKeys(TERMINAL_DETAIL.flat())).toEqual([]);
  });

  it('scroll the terminal with the letters the timeline moves with: the two scopes are never active together', () => {
    const keysOf = (keymap: Keymap, action: Action) => keymap.find((binding) => binding.action === action)?.keys;
    const pairs: [Action, Action][] = [
      ['scroll:down', 'event:next'],
      ['scroll:up', 'event:previous'],
      ['scroll:top', 'event:first'],
      ['scroll:bottom', 'event:last'],
    ];
    for (const [scroll, event] of pairs) {
      expect(keysOf(SCROLL_KEYS, scroll), scroll).toEqual(keysOf(EVENTS_KEYS, event));
    }
    expect(duplicateKeys([...SCROLL_KEYS, ...EVENTS_KEYS])).toEqual(['j', 'ArrowDown', 'k', 'ArrowUp', 'g', 'G']);
  });

  it('duplicateKeys names each repeated key once', () => {
    const clashing: Keymap = [
      { keys: ['j', 'ArrowDown'], action: 'row:next', description: 'Next' },
      { keys: ['j'], action: 'row:previous', description: 'Clash' },
      { keys: ['j', 'ArrowDown'], action: 'row:open', description: 'Clash again' },
    ];
    expect(duplicateKeys(clashing)).toEqual(['j', 'ArrowDown']);
  });
});

describe('dispatch', () => {
  it('leaves presses with Ctrl, Meta or Alt to the browser', () => {
    for (const modifier of ['ctrlKey', 'metaKey', 'altKey'] as const) {
      expect(dispatch(EVENTS_PAGE, press('j', { [modifier]: true })), modifier).toBeUndefined();
      expect(dispatch(EVENTS_PAGE, press('Escape', { [modifier]: true })), modifier).toBeUndefined();
    }
  });

  it('lets an editable field keep every key but Escape', () => {
    for (const key of ['j', 'k', 'g', 'G', 'n', '/', '?', '1', 'Enter', 'ArrowDown', 'R', 'S', 'C', 'm']) {
      expect(dispatch(EVENTS_PAGE, press(key, { inEditable: true })), key).toBeUndefined();
    }
    expect(dispatch(EVENTS_PAGE, press('Escape', { inEditable: true }))).toBe('back');
  });

  it('asks the most specific scope first and falls through to the next', () => {
    const page: Keymap = [{ keys: ['?'], action: 'event:open', description: 'Shadows the help key' }];
    expect(dispatch([page, GLOBAL_KEYS], press('?'))).toBe('event:open');
    expect(dispatch([GLOBAL_KEYS, page], press('?'))).toBe('help:toggle');
    expect(dispatch([page, GLOBAL_KEYS], press('/'))).toBe('filter:focus');
  });

  it('tells apart keys Shift changes, and ignores unbound keys and no scopes', () => {
    expect(dispatch(EVENTS_PAGE, press('n'))).toBe('event:next-switch');
    expect(dispatch(EVENTS_PAGE, press('N'))).toBe('event:previous-switch');
    expect(dispatch(LIST_PAGE, press('n'))).toBeUndefined();
    expect(dispatch(EVENTS_PAGE, press('x'))).toBeUndefined();
    expect(dispatch([], press('j'))).toBeUndefined();
  });
});

describe('helpSections', () => {
  it("lists the resume, switch, cancel and message keys in the detail page's own section", () => {
    const [section] = helpSections([{ title: 'This execution', keymap: DETAIL_KEYS }]);
    expect(section?.rows).toEqual([
      { keys: 'R', description: 'Resume a waiting execution now (asks first)' },
      { keys: 'S', description: 'Switch a running or waiting execution to another harness (asks which)' },
      { keys: 'C', description: 'Cancel the execution (asks first)' },
      { keys: 'm', description: 'Write a follow-up message to the harness' },
    ]);
  });

  it('gives one section per scope, in order, with keys joined readably', () => {
    const sections = helpSections([
      { title: 'Events', keymap: EVENTS_KEYS },
      { title: 'Everywhere', keymap: GLOBAL_KEYS },
    ]);
    expect(sections.map((section) => section.title)).toEqual(['Events', 'Everywhere']);
    expect(sections[0]?.rows).toHaveLength(EVENTS_KEYS.length);
    expect(sections[0]?.rows[0]).toEqual({ keys: 'j / ↓', description: 'Next event' });
    expect(sections[0]?.rows[1]).toEqual({ keys: 'k / ↑', description: 'Previous event' });
    expect(sections[0]?.rows.find((row) => row.description === 'Last event')?.keys).toBe('G');
    expect(sections[1]?.rows[1]).toEqual({
      keys: 'Esc',
      description: 'Close the overlay, leave the field, or go back',
    });
  });
});

describe('timeline navigation', () => {
  it('steps and clamps at both ends', () => {
    expect(step(5, 2, 1)).toBe(3);
    expect(step(5, 2, -1)).toBe(1);
    expect(step(5, 4, 1)).toBe(4);
    expect(step(5, 0, -1)).toBe(0);
    expect(step(5, 1, 10)).toBe(4);
    expect(step(5, 3, -10)).toBe(0);
  });

  it('selects the first event on j and the last on k when nothing is selected yet', () => {
    expect(step(5, -1, 1)).toBe(0);
    expect(step(5, -1, -1)).toBe(4);
    expect(step(5, -1, 0)).toBe(-1);
  });

  it('selects nothing in an empty timeline', () => {
    expect(step(0, -1, 1)).toBe(-1);
    expect(step(0, -1, -1)).toBe(-1);
    expect(first(0)).toBe(-1);
    expect(last(0)).toBe(-1);
  });

  it('finds the first and the last event', () => {
    expect(first(7)).toBe(0);
    expect(last(7)).toBe(6);
    expect(first(1)).toBe(0);
    expect(last(1)).toBe(0);
  });

  it('knows which event types tell the switch story', () => {
    for (const type of ['quota.exhausted', 'failover', 'attempt.started', 'attempt.ended']) {
      expect(isSwitchRelated(type), type).toBe(true);
    }
    for (const type of ['execution.started', 'turn.started', 'message', 'tool.call', 'usage', 'rate_limit']) {
      expect(isSwitchRelated(type), type).toBe(false);
    }
  });

  describe('n / N over an execution with two switches, in the order drive.ts records them', () => {
    const TYPES = [
      'execution.started', //  0
      'attempt.started', //    1  switch  (attempt 1)
      'session.started', //    2
      'turn.started', //       3
      'tool.call', //          4
      'tool.result', //        5
      'rate_limit', //         6
      'turn.ended', //         7
      'quota.exhausted', //    8  switch
      'attempt.ended', //      9  switch
      'failover', //          10  switch
      'attempt.started', //   11  switch  (attempt 2)
      'turn.started', //      12
      'message', //           13
      'usage', //             14
      'turn.ended', //        15
      'quota.exhausted', //   16  switch
      'attempt.ended', //     17  switch
      'failover', //          18  switch
      'attempt.started', //   19  switch  (attempt 3)
      'turn.started', //      20
      'message', //           21
      'turn.ended', //        22
      'attempt.ended', //     23  switch
      'execution.ended', //   24
    ];
    const next = (current: number) => nextMatching(TYPES, current, 1, isSwitchRelated);
    const previous = (current: number) => nextMatching(TYPES, current, -1, isSwitchRelated);

    it('uses only event types the log really writes', () => {
      for (const type of TYPES) expect(EVENT_TYPES, type).toContain(type);
    });

    it('n walks forward through every switch event, in order', () => {
      const visited: number[] = [];
      for (let at = next(-1); !visited.includes(at); at = next(at)) visited.push(at);
      expect(visited).toEqual([1, 8, 9, 10, 11, 16, 17, 18, 19, 23]);
    });

    it('N walks backward through every switch event, in order', () => {
      const visited: number[] = [];
      for (let at = previous(-1); !visited.includes(at); at = previous(at)) visited.push(at);
      expect(visited).toEqual([23, 19, 18, 17, 16, 11, 10, 9, 8, 1]);
    });

    it('skips the events between switches from wherever the selection is', () => {
      expect(next(4)).toBe(8);
      expect(previous(14)).toBe(11);
      expect(next(11)).toBe(16);
    });

    it('stays where it is when nothing matches in that direction: no wrap-around', () => {
      expect(next(23)).toBe(23);
      expect(next(24)).toBe(24);
      expect(previous(1)).toBe(1);
      expect(previous(0)).toBe(0);
      expect(nextMatching(TYPES, 4, 1, (type) => type === 'warning')).toBe(4);
      expect(nextMatching([], -1, 1, isSwitchRelated)).toBe(-1);
      expect(nextMatching([], -1, -1, isSwitchRelated)).toBe(-1);
    });
  });
});
