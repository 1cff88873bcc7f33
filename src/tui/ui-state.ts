/**
 * The terminal UI's state and what a key press does to it, as one pure reducer: the app feeds it
 * every press with the rows it last received, so presses that arrive faster than the screen
 * redraws (typing, a paste, a test) each see the state the previous one left, never a stale one.
 *
 * The state: the screen, the selected row of each screen (kept by id, so a refresh that adds or
 * removes rows leaves the selection on its execution; the first row until one is chosen), the filter (`/`: task name, id prefix, state or harness;
 * typing goes into it until `Enter` or `Esc`; `Esc` on the list clears it), the `?` overlay, the
 * opened execution with its view's state (detail/state.ts reduces the presses it gets), the opened
 * workflow run (read only: it scrolls, and `Esc` leaves it) and whether the user quit. Keys are turned into actions by the Workbench's `dispatch` over the scopes of the
 * view shown. `q` quits and `?` opens the help unless typing goes into a field or a prompt.
 */
import { dispatch, type KeyPress } from '../web/keys/dispatch.js';
import { RUN_VIEW_KEYS, SCROLL_KEYS, TERMINAL_KEYS } from '../web/keys/keymap.js';
import { first, last, step } from '../web/keys/timeline.js';
import {
  type DetailFacts,
  type DetailState,
  detailScopes,
  detailTakesTyping,
  openDetail,
  reduceDetail,
  settleRequest,
} from './detail/state.js';
import { helpHeight, helpLines, type Scope } from './help.js';
import { editedText, splitTyped } from './key-press.js';
import {
  type ExecutionScreen,
  type ListedExecution,
  listScopes,
  matchesFilter,
  SCREENS,
  type Screen,
  type ScreenRows,
} from './rows.js';
import { type ListedRun, matchesRunFilter } from './run-rows.js';
import { type Scroll, scrolled } from './scroll.js';

export interface UiState {
  readonly screen: Screen;
  readonly selectedIds: Partial<Record<Screen, string>>;
  readonly filter: string;
  /** True while typing goes into the filter. */
  readonly editing: boolean;
  readonly help: boolean;
  /** Where the `?` help is scrolled to (it can be longer than a terminal is high). */
  readonly helpScroll: Scroll;
  /** The execution `Enter` opened (its row as listed) and its view's state, until `Esc` leaves it. */
  readonly opened: { readonly row: ListedExecution; readonly view: DetailState } | undefined;
  /** The workflow run `Enter` opened on the Workflows screen (its row as listed) and where its text is scrolled. */
  readonly run: { readonly row: ListedRun; readonly scroll: Scroll } | undefined;
  readonly quit: boolean;
}

export const INITIAL_STATE: UiState = {
  screen: 'executions',
  selectedIds: {},
  filter: '',
  editing: false,
  help: false,
  helpScroll: 0,
  opened: undefined,
  run: undefined,
  quit: false,
};

/**
 * One key press: the dispatcher's view of it (its `inEditable` is replaced by the state's own
 * `editing`), the text it typed, and each screen's rows as last received.
 */
export interface PressEvent {
  readonly press: KeyPress;
  readonly input: string;
  readonly rows: ScreenRows;
  /** What the opened execution's view knows, when one is open. */
  readonly detail?: DetailFacts;
  /** How many lines the opened run's text has and how many of them show, when a run is open. */
  readonly run?: { readonly lines: number; readonly height: number };
  /** The lines the app is drawn in (the help scrolls in them); default 24. */
  readonly height?: number;
}

/** The answer to a request the opened execution's view ran (see `settleRequest`). */
export interface SettleEvent {
  readonly settle: { readonly seq: number; readonly notice: string; readonly awaitedTurn?: string };
}

const NO_FACTS: DetailFacts = {
  events: [],
  state: undefined,
  harness: undefined,
  waitingFor: undefined,
  lines: 0,
  height: 1,
};

/** `Tab` switches the list screens, so an opened run lists only `q` of the terminal's keys. */
const RUN_TERMINAL_KEYS = TERMINAL_KEYS.filter((binding) => binding.action !== 'screen:next');

/** The scopes of keys of an opened workflow run, most specific first. */
export const RUN_SCOPES: readonly Scope[] = [
  { title: 'Scrolling', keymap: SCROLL_KEYS },
  { title: 'This run', keymap: RUN_VIEW_KEYS },
  { title: 'Terminal', keymap: RUN_TERMINAL_KEYS },
];

/** The scopes of keys active in `state`, most specific first (the help shows the same). */
export function scopesOf(state: UiState): readonly Scope[] {
  if (state.opened !== undefined) return detailScopes(state.opened.view);
  return state.run === undefined ? listScopes(state.screen) : RUN_SCOPES;
}

/** Whether typing goes into a field or a prompt now (then `q` and `?` are text). */
function takesTyping(state: UiState): boolean {
  if (state.opened !== undefined) return detailTakesTyping(state.opened.view);
  return state.run === undefined && state.editing;
}

/** A screen's rows as shown: the executions of Executions or History, or the runs of Workflows. */
export type ShownRows =
  | { readonly screen: ExecutionScreen; readonly rows: readonly ListedExecution[] }
  | { readonly screen: 'workflows'; readonly rows: readonly ListedRun[] };

/** The rows the current screen shows: its rows through the filter. */
export function shownRows(state: UiState, rows: PressEvent['rows']): ShownRows {
  const { screen, filter } = state;
  if (screen === 'workflows') {
    return { screen, rows: (rows.workflows ?? []).filter((run) => matchesRunFilter(run, filter)) };
  }
  return { screen, rows: (rows[screen] ?? []).filter((row) => matchesFilter(row, filter)) };
}

/**
 * The index of the selected row among `shown`: the row chosen last, else the first — so a row is
 * selected from the first frame on, and `Enter` opens it at once — and `-1` only when none is shown.
 * A chosen row that left the list (ended, filtered out) gives way to the first too.
 */
export function selectedIndex(state: UiState, shown: readonly { readonly id: string }[]): number {
  const chosen = shown.findIndex((row) => row.id === state.selectedIds[state.screen]);
  return chosen >= 0 || shown.length === 0 ? chosen : 0;
}

export function reduce(state: UiState, event: PressEvent | SettleEvent): UiState {
  if ('settle' in event) {
    const { opened } = state;
    return opened === undefined
      ? state
      : { ...state, opened: { ...opened, view: settleRequest(opened.view, event.settle.seq, event.settle) } };
  }
  // A chunk of typed keys is each of its keys; a message keeps its line breaks (as spaces).
  const keys = state.opened?.view.prompt?.kind === 'message' ? undefined : splitTyped(event.input, event.press);
  if (keys !== undefined) return keys.reduce((reached, key) => reduce(reached, { ...event, ...key }), state);
  const press: KeyPress = { ...event.press, inEditable: takesTyping(state) };
  const { input } = event;
  const action = dispatch(
    scopesOf(state).map((scope) => scope.keymap),
    press,
  );
  if (action === 'app:quit' && !press.inEditable) return { ...state, quit: true };
  if (state.help) {
    if (action === 'help:toggle' || action === 'back') return { ...state, help: false };
    const scroll = dispatch([SCROLL_KEYS], press);
    if (scroll === undefined) return state;
    const lines = helpLines(scopesOf(state)).length;
    return { ...state, helpScroll: scrolled(scroll, state.helpScroll, lines, helpHeight(event.height ?? 24)) };
  }
  if (action === 'help:toggle') return { ...state, help: true, helpScroll: 0 };
  if (state.opened !== undefined) {
    const view = reduceDetail(state.opened.view, event.press, input, event.detail ?? NO_FACTS);
    return view === 'close' ? { ...state, opened: undefined } : { ...state, opened: { ...state.opened, view } };
  }
  if (state.run !== undefined) {
    if (action === 'back') return { ...state, run: undefined };
    if (action === undefined || !action.startsWith('scroll:')) return state;
    const { lines, height } = event.run ?? { lines: 0, height: 1 };
    return { ...state, run: { ...state.run, scroll: scrolled(action, state.run.scroll, lines, height) } };
  }
  if (state.editing) {
    if (action === 'back' || press.key === 'Enter') return { ...state, editing: false };
    return { ...state, filter: editedText(state.filter, press, input) };
  }
  const listed = shownRows(state, event.rows);
  const shown = listed.rows;
  const selected = selectedIndex(state, shown);
  const select = (index: number): UiState => {
    const row = shown[index];
    return row === undefined ? state : { ...state, selectedIds: { ...state.selectedIds, [state.screen]: row.id } };
  };
  switch (action) {
    case 'screen:next':
      return { ...state, screen: SCREENS[(SCREENS.indexOf(state.screen) + 1) % SCREENS.length] ?? 'executions' };
    case 'filter:focus':
      return { ...state, editing: true };
    case 'back':
      return { ...state, filter: '' };
    case 'row:next':
      return select(step(shown.length, selected, 1));
    case 'row:previous':
      return select(step(shown.length, selected, -1));
    case 'row:first':
      return select(first(shown.length));
    case 'row:last':
      return select(last(shown.length));
    case 'row:open': {
      if (listed.screen === 'workflows') {
        const run = listed.rows[selected];
        return run === undefined ? state : { ...state, run: { row: run, scroll: 0 } };
      }
      const row = listed.rows[selected];
      return row === undefined ? state : { ...state, opened: { row, view: openDetail(row.id) } };
    }
    default:
      return state;
  }
}
