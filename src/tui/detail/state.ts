/**
 * An opened execution's view in the terminal UI — its tabs, the Events timeline's selection and
 * filter, scrolling, the open record, and the prompts of its actions — and what a key press does to
 * it, as one pure reducer beside the list screens' (ui-state.ts), which hands it every press while
 * an execution is open.
 *
 * Keys are turned into actions by the Workbench's `dispatch` over the same scopes its detail page
 * has (`EVENTS_KEYS` on Events, `DETAIL_KEYS`, `GLOBAL_KEYS`), with the terminal's `SCROLL_KEYS`
 * where a browser would scroll the page, so `2`, `n`, `S` mean what they mean there. While a prompt
 * is open, keys belong to it (prompt-state.ts). An action that reaches the service is not run here:
 * the state names it in `request` with a new `seq`, and the view runs it once per `seq`.
 *
 * Decisions: the timeline's selection is kept by the stream's record id, so records arriving
 * never move it; with nothing selected the timeline follows the newest record. A scroll position
 * of `'end'` is the bottom, and stays there as lines arrive (the Transcript opens that way, like a
 * chat); scrolling down onto the bottom follows again.
 */
import { dispatch, type KeyPress } from '../../web/keys/dispatch.js';
import {
  type Action,
  DETAIL_KEYS,
  EVENTS_KEYS,
  GLOBAL_KEYS,
  SCROLL_KEYS,
  TERMINAL_KEYS,
} from '../../web/keys/keymap.js';
import { first, isSwitchRelated, last, nextMatching, step } from '../../web/keys/timeline.js';
import type { EventRecord } from '../../web/records.js';
import type { Scope } from '../help.js';
import { editedText } from '../key-press.js';
import { type Scroll, scrolled } from '../scroll.js';
import { type ActionRequest, openPrompt, type Prompt, reducePrompt } from './prompt-state.js';
import { matchesEventFilter } from './timeline-filter.js';

export type Tab = 'summary' | 'events' | 'transcript' | 'changes';

/** The tabs in the order of their keys `1`–`4`, and their titles (the Workbench's). */
export const TABS: readonly Tab[] = ['summary', 'events', 'transcript', 'changes'];
export const TAB_TITLES: Readonly<Record<Tab, string>> = {
  summary: 'Summary',
  events: 'Events',
  transcript: 'Transcript',
  changes: 'Changes',
};

/** What scrolls: the three text tabs and an opened record. */
export type Scrolled = 'summary' | 'transcript' | 'changes' | 'record';

/** One record of the execution's stream and its id there. */
export interface TimelineEvent {
  readonly id: number;
  readonly record: EventRecord;
}

export interface DetailState {
  /** The execution's id. */
  readonly execution: string;
  readonly tab: Tab;
  readonly scroll: Readonly<Record<Scrolled, Scroll>>;
  /** The selected record's stream id; undefined: none, the timeline follows the newest. */
  readonly selectedEvent: number | undefined;
  /** The record `Enter` opened, by stream id. */
  readonly openEvent: number | undefined;
  /** The Events filter (type, harness or line; case ignored) and whether typing goes into it. */
  readonly filter: string;
  readonly editing: boolean;
  readonly prompt: Prompt | undefined;
  /** The last request an action asked for; the view runs each `seq` once. */
  readonly request: (ActionRequest & { readonly seq: number }) | undefined;
  /** One line saying what the last action did or why it did nothing; cleared by the next action. */
  readonly notice: string | undefined;
  /** The follow-up message sent last, until the stream shows it delivered. */
  readonly awaitedTurn: string | undefined;
}

/** What holds for the execution as the view last heard, which some keys depend on. */
export interface DetailFacts {
  /** Every record received so far, in stream order. */
  readonly events: readonly TimelineEvent[];
  /** The execution's state and the harness on it (or last on it), when known. */
  readonly state: string | undefined;
  readonly harness: string | undefined;
  /** The harness a waiting execution waits for, when its stream has a wait open. */
  readonly waitingFor: string | undefined;
  /** The current text's length in lines, and how many the view shows at once. */
  readonly lines: number;
  readonly height: number;
}

export function openDetail(execution: string): DetailState {
  return {
    execution,
    tab: 'summary',
    scroll: { summary: 0, transcript: 'end', changes: 0, record: 0 },
    selectedEvent: undefined,
    openEvent: undefined,
    filter: '',
    editing: false,
    prompt: undefined,
    request: undefined,
    notice: undefined,
    awaitedTurn: undefined,
  };
}

/** `Tab` switches the list screens, so it is not among the terminal keys an opened execution lists. */
const DETAIL_TERMINAL_KEYS = TERMINAL_KEYS.filter((binding) => binding.action !== 'screen:next');

/** The scopes of keys active in `state`, most specific first (the help shows the same). */
export function detailScopes(state: DetailState): readonly Scope[] {
  const own =
    state.tab === 'events' && state.openEvent === undefined
      ? { title: 'Events', keymap: EVENTS_KEYS }
      : { title: 'Scrolling', keymap: SCROLL_KEYS };
  return [
    own,
    { title: 'This execution', keymap: DETAIL_KEYS },
    { title: 'Everywhere', keymap: GLOBAL_KEYS },
    { title: 'Terminal', keymap: DETAIL_TERMINAL_KEYS },
  ];
}

/** The records the timeline shows: all of them through the filter. */
export function shownEvents(state: DetailState, events: readonly TimelineEvent[]): readonly TimelineEvent[] {
  return state.filter.trim() === '' ? events : events.filter((event) => matchesEventFilter(event.record, state.filter));
}

/** What scrolls now: the opened record, or the tab's text (undefined on the timeline). */
export function scrolledNow(state: Pick<DetailState, 'tab' | 'openEvent'>): Scrolled | undefined {
  if (state.openEvent !== undefined) return 'record';
  return state.tab === 'events' ? undefined : state.tab;
}

/** Whether typing goes somewhere (the filter or a prompt's text): then `q` and the other letters are text. */
export function detailTakesTyping(state: DetailState): boolean {
  return state.editing || state.prompt !== undefined;
}

/**
 * The state after `press` (which typed `input`); `'close'` when it leaves the execution (`Esc` with
 * nothing else to leave).
 */
export function reduceDetail(
  state: DetailState,
  press: KeyPress,
  input: string,
  facts: DetailFacts,
): DetailState | 'close' {
  if (state.prompt !== undefined) {
    const outcome = reducePrompt(state.prompt, press, input);
    if (outcome === 'close') return { ...state, prompt: undefined };
    if ('request' in outcome) {
      return {
        ...state,
        prompt: undefined,
        request: { ...outcome.request, seq: (state.request?.seq ?? 0) + 1 },
        notice: outcome.pending,
        awaitedTurn: undefined,
      };
    }
    return { ...state, prompt: outcome.prompt };
  }
  const action = dispatch(
    detailScopes(state).map((scope) => scope.keymap),
    { ...press, inEditable: state.editing },
  );
  if (state.editing) return editFilter(state, press, input, action);
  if (action === 'back') return back(state);
  const tab = tabOf(action);
  if (tab !== undefined) return { ...state, tab, openEvent: undefined };
  if (action?.startsWith('scroll:')) return scroll(state, action, facts);
  if (action?.startsWith('event:')) return moveInTimeline(state, action, facts);
  if (action === 'filter:focus') {
    return state.tab === 'events' ? { ...state, editing: true } : ask(state, facts, 'execution:message');
  }
  if (action?.startsWith('execution:')) return ask(state, facts, action);
  return state;
}

/** The state after `Esc`: leave the open record, clear the filter, or leave the execution. */
function back(state: DetailState): DetailState | 'close' {
  if (state.openEvent !== undefined) return { ...state, openEvent: undefined };
  if (state.tab === 'events' && state.filter !== '') return { ...state, filter: '', selectedEvent: undefined };
  return 'close';
}

function tabOf(action: Action | undefined): Tab | undefined {
  switch (action) {
    case 'tab:summary':
      return 'summary';
    case 'tab:events':
      return 'events';
    case 'tab:transcript':
      return 'transcript';
    case 'tab:changes':
      return 'changes';
    default:
      return undefined;
  }
}

/** Typing into the Events filter: `Enter` keeps it, `Esc` leaves it, `Backspace` deletes. */
function editFilter(state: DetailState, press: KeyPress, input: string, action: Action | undefined): DetailState {
  if (action === 'back' || press.key === 'Enter') return { ...state, editing: false };
  const filter = editedText(state.filter, press, input);
  return filter === state.filter ? state : { ...state, filter, selectedEvent: undefined };
}

function scroll(state: DetailState, action: Action, facts: DetailFacts): DetailState {
  const what = scrolledNow(state);
  if (what === undefined) return state;
  return {
    ...state,
    scroll: { ...state.scroll, [what]: scrolled(action, state.scroll[what], facts.lines, facts.height) },
  };
}

function moveInTimeline(state: DetailState, action: Action, facts: DetailFacts): DetailState {
  const shown = shownEvents(state, facts.events);
  const current = shown.findIndex((event) => event.id === state.selectedEvent);
  const types = shown.map((event) => event.record.type);
  const index: Record<string, () => number> = {
    'event:next': () => step(shown.length, current, 1),
    'event:previous': () => step(shown.length, current, -1),
    'event:first': () => first(shown.length),
    'event:last': () => last(shown.length),
    'event:next-switch': () => nextMatching(types, current, 1, isSwitchRelated),
    'event:previous-switch': () => nextMatching(types, current, -1, isSwitchRelated),
  };
  if (action === 'event:open') {
    return state.selectedEvent === undefined || current < 0
      ? state
      : { ...state, openEvent: state.selectedEvent, scroll: { ...state.scroll, record: 0 } };
  }
  const chosen = shown[index[action]?.() ?? current];
  return chosen === undefined ? state : { ...state, selectedEvent: chosen.id };
}

/** Opens the prompt of an action on the execution, or says why it cannot be taken now. */
function ask(state: DetailState, facts: DetailFacts, action: Action): DetailState {
  const opened = openPrompt(action, facts);
  return typeof opened === 'string' ? { ...state, notice: opened } : { ...state, prompt: opened, notice: undefined };
}

/**
 * The state once the request `seq` was answered: `notice` says how (the service's refusal in its
 * words, or that it was taken); a sent message's turn is awaited until the stream delivers it. An
 * answer to a request older than the last one only updates nothing.
 */
export function settleRequest(
  state: DetailState,
  seq: number,
  outcome: { readonly notice: string; readonly awaitedTurn?: string },
): DetailState {
  if (state.request?.seq !== seq) return state;
  return { ...state, notice: outcome.notice, awaitedTurn: outcome.awaitedTurn };
}
