/**
 * The Workbench's keyboard shortcuts, as data: one keymap per scope, each binding a list of
 * `KeyboardEvent.key` values to an `Action` and the sentence the `?` overlay shows for it.
 *
 * Scopes: `GLOBAL_KEYS` hold on every page (the tab keys `1`–`4` only mean something on the
 * execution detail page; pages without tabs ignore those actions), `LIST_KEYS` on the Executions and
 * History tables, `EXECUTIONS_KEYS` on the Executions screen, `DETAIL_KEYS` on every tab of the detail page, `EVENTS_KEYS` on its Events tab. Which scopes are active, and in what
 * order, is the page's choice (see `dispatch.ts`); what an action does is the DOM glue's.
 * `TERMINAL_KEYS` and `SCROLL_KEYS` hold only in the terminal UI (`harmflow ui`, src/tui/), which
 * renders the same scopes: a browser has its own tabs, its own way to close and its own scrolling,
 * so the Workbench never activates them and its help does not list them.
 *
 * Shift is part of `key` ('G' is Shift+g, '?' is Shift+/), so bindings name the character produced.
 * This module is plain data, shared by the browser and Node: no Node, no DOM.
 */

/** Everything a key can ask the Workbench to do. */
export type Action =
  | 'help:toggle'
  | 'back'
  | 'filter:focus'
  | 'tab:summary'
  | 'tab:events'
  | 'tab:transcript'
  | 'tab:changes'
  | 'row:next'
  | 'row:previous'
  | 'row:open'
  | 'row:first'
  | 'row:last'
  | 'event:next'
  | 'event:previous'
  | 'event:open'
  | 'event:first'
  | 'event:last'
  | 'event:next-switch'
  | 'event:previous-switch'
  | 'execution:resume'
  | 'execution:switch'
  | 'execution:cancel'
  | 'execution:message'
  | 'task:new'
  | 'review:approve'
  | 'review:reject'
  | 'review:approve-all'
  | 'review:reject-all'
  | 'run:resume'
  | 'scroll:down'
  | 'scroll:up'
  | 'scroll:page-down'
  | 'scroll:page-up'
  | 'scroll:top'
  | 'scroll:bottom'
  | 'screen:next'
  | 'app:quit';

/** One shortcut: any of `keys` triggers `action`; `description` is its line in the help overlay. */
export type Binding = {
  readonly keys: readonly string[];
  readonly action: Action;
  readonly description: string;
};

/** The bindings of one scope. A key appears at most once in a keymap (held by a test, see `duplicateKeys`). */
export type Keymap = readonly Binding[];

export const GLOBAL_KEYS: Keymap = [
  { keys: ['?'], action: 'help:toggle', description: 'Show or hide this help' },
  { keys: ['Escape'], action: 'back', description: 'Close the overlay, leave the field, or go back' },
  { keys: ['/'], action: 'filter:focus', description: 'Filter' },
  { keys: ['1'], action: 'tab:summary', description: 'Summary tab' },
  { keys: ['2'], action: 'tab:events', description: 'Events tab' },
  { keys: ['3'], action: 'tab:transcript', description: 'Transcript tab' },
  { keys: ['4'], action: 'tab:changes', description: 'Changes tab' },
];

export const LIST_KEYS: Keymap = [
  { keys: ['j', 'ArrowDown'], action: 'row:next', description: 'Next row' },
  { keys: ['k', 'ArrowUp'], action: 'row:previous', description: 'Previous row' },
  { keys: ['Enter'], action: 'row:open', description: 'Open the selected row' },
  { keys: ['g'], action: 'row:first', description: 'First row' },
  { keys: ['G'], action: 'row:last', description: 'Last row' },
];

/** The Executions screen's own: `c` creates a task (as in Vibe Kanban and Linear), in the New task form. */
export const EXECUTIONS_KEYS: Keymap = [
  { keys: ['c'], action: 'task:new', description: 'New task: write one and submit it' },
];

/**
 * Shift+r, Shift+s and Shift+c, like `G` and `N` capitals: each asks before it does anything, and a
 * capital is not typed by accident. `m` only opens the message box: sending stops no work.
 */
export const DETAIL_KEYS: Keymap = [
  { keys: ['R'], action: 'execution:resume', description: 'Resume a waiting execution now (asks first)' },
  {
    keys: ['S'],
    action: 'execution:switch',
    description: 'Switch a running or waiting execution to another harness (asks which)',
  },
  { keys: ['C'], action: 'execution:cancel', description: 'Cancel the execution (asks first)' },
  { keys: ['m'], action: 'execution:message', description: 'Write a follow-up message to the harness' },
];

/**
 * A workflow run's Review page: the waiting items are a list (`j`/`k`, `g`/`G`), each decided with
 * `a` or `r` (a rejection asks for its note); the capitals decide every item still waiting, and `P`
 * — proceed — resumes the run with the decisions. Each capital asks first.
 */
export const REVIEW_KEYS: Keymap = [
  { keys: ['j', 'ArrowDown'], action: 'row:next', description: 'Next item' },
  { keys: ['k', 'ArrowUp'], action: 'row:previous', description: 'Previous item' },
  { keys: ['g'], action: 'row:first', description: 'First item' },
  { keys: ['G'], action: 'row:last', description: 'Last item' },
  { keys: ['a'], action: 'review:approve', description: 'Approve the selected item' },
  { keys: ['r'], action: 'review:reject', description: 'Reject the selected item (asks for a note)' },
  { keys: ['A'], action: 'review:approve-all', description: 'Approve every item still waiting (asks first)' },
  {
    keys: ['R'],
    action: 'review:reject-all',
    description: 'Reject every item still waiting (asks for a note)',
  },
  { keys: ['P'], action: 'run:resume', description: 'Proceed: resume the run with the decisions (asks first)' },
];

export const EVENTS_KEYS: Keymap = [
  { keys: ['j', 'ArrowDown'], action: 'event:next', description: 'Next event' },
  { keys: ['k', 'ArrowUp'], action: 'event:previous', description: 'Previous event' },
  { keys: ['Enter'], action: 'event:open', description: 'Open the selected event' },
  { keys: ['g'], action: 'event:first', description: 'First event' },
  { keys: ['G'], action: 'event:last', description: 'Last event' },
  { keys: ['n'], action: 'event:next-switch', description: 'Next switch event (quota, failover, attempt)' },
  { keys: ['N'], action: 'event:previous-switch', description: 'Previous switch event' },
];

/** The terminal UI's own keys (see the file comment): `Tab` is `KeyboardEvent.key`'s name for the tab key. */
export const TERMINAL_KEYS: Keymap = [
  { keys: ['Tab'], action: 'screen:next', description: 'Next screen: Executions, History, Workflows' },
  { keys: ['q'], action: 'app:quit', description: 'Quit' },
];

/**
 * An opened workflow run in the terminal UI (its facts and steps' progress): it is only read there —
 * a run is reviewed in the Workbench —, so besides scrolling (`SCROLL_KEYS`) there is the help and the
 * way back. Terminal only, like `TERMINAL_KEYS`.
 */
export const RUN_VIEW_KEYS: Keymap = [
  { keys: ['?'], action: 'help:toggle', description: 'Show or hide this help' },
  { keys: ['Escape'], action: 'back', description: 'Back to the Workflows screen' },
];

/**
 * Scrolling a long text in the terminal UI (an execution's Summary, Transcript and Changes, an opened
 * event): a browser scrolls a page by itself, so like `TERMINAL_KEYS` the Workbench never activates
 * this scope. The same letters as the lists' and the timeline's moves, so `j` always goes down.
 */
export const SCROLL_KEYS: Keymap = [
  { keys: ['j', 'ArrowDown'], action: 'scroll:down', description: 'Scroll down a line' },
  { keys: ['k', 'ArrowUp'], action: 'scroll:up', description: 'Scroll up a line' },
  { keys: [' ', 'PageDown'], action: 'scroll:page-down', description: 'Scroll down a page' },
  { keys: ['b', 'PageUp'], action: 'scroll:page-up', description: 'Scroll up a page' },
  { keys: ['g'], action: 'scroll:top', description: 'Go to the top' },
  { keys: ['G'], action: 'scroll:bottom', description: 'Go to the bottom (and follow what arrives)' },
];
