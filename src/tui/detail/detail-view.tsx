/** @jsxImportSource react */
/**
 * An opened execution in the terminal UI, in the lines of an 80×24 terminal or larger: its task,
 * state, harness, attempt and id; the tabs `1`–`4` (the current one in brackets) and how its event
 * stream is (`live`, `ended`, or what went wrong while it reconnects); the body — the Events
 * timeline around its selection (`›`), or a window of the scrolled text; a notice line; the open
 * prompt; the keys, offering the actions the execution's state allows (key-hints.ts). Everything it
 * draws is given: the state (detail/state.ts), the data (use-detail.ts) and the text and layout
 * (body-text.ts) the app computed, so the keys and the screen always agree on what is shown.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { describeEvent } from '../../web/describe-event.js';
import { describeWait } from '../../web/wait.js';
import type { ListedExecution } from '../rows.js';
import { topLine } from '../scroll.js';
import { stateColor, toneStyle } from '../theme.js';
import { eventRow, eventTone } from './event-lines.js';
import { detailKeyHints } from './key-hints.js';
import type { Line } from './lines.js';
import {
  type DetailFacts,
  type DetailState,
  scrolledNow,
  shownEvents,
  TAB_TITLES,
  TABS,
  type TimelineEvent,
} from './state.js';
import { deliveredTo } from './transcript-lines.js';
import type { DetailData } from './use-detail.js';

export interface DetailViewProps {
  readonly row: ListedExecution;
  readonly view: DetailState;
  readonly data: DetailData;
  /** What scrolls now (body-text.ts), undefined on the timeline. */
  readonly text: readonly Line[] | undefined;
  readonly prompt: readonly Line[];
  readonly bodyHeight: number;
  readonly width: number;
  readonly now: number;
  readonly color: boolean;
  /** What the app knows of the execution's state now: the key hints offer the actions it allows. */
  readonly facts: Pick<DetailFacts, 'state' | 'harness' | 'waitingFor'>;
}

export function DetailView(props: DetailViewProps) {
  const { view, data, width, color } = props;
  const record = data.summary instanceof Error || data.summary === undefined ? props.row : data.summary.execution;
  const harness = record.currentHarness === undefined ? '' : ` on ${record.currentHarness}`;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        {`${record.taskName} · `}
        <Text {...colorProp(stateColor(record.state, color))}>{record.state}</Text>
        {`${harness} · attempt ${record.attemptCount} · ${record.id}`}
      </Text>
      <Text wrap="truncate-end">
        {TABS.map((tab, index) => {
          const current = tab === view.tab;
          const label = `${index + 1} ${TAB_TITLES[tab]}`;
          return (
            <Text key={tab} bold={color && current} {...(color && current && { color: 'cyan' })}>
              {current ? `[${label}] ` : ` ${label}  `}
            </Text>
          );
        })}
        {view.tab === 'events' && view.filter !== '' && !view.editing ? `  / ${view.filter}` : ''}
        <Text dimColor={color}>{`  ${streamNote(data.stream)}`}</Text>
      </Text>
      <Box flexDirection="column" height={props.bodyHeight}>
        {props.text === undefined ? (
          <Timeline
            events={shownEvents(view, data.events)}
            selected={view.selectedEvent}
            filtered={view.filter.trim() !== ''}
            height={props.bodyHeight}
            width={width}
            color={color}
          />
        ) : (
          <Lines
            lines={props.text}
            first={topLine(view.scroll[scrolledNow(view) ?? 'record'], props.text.length, props.bodyHeight)}
            count={props.bodyHeight}
            color={color}
          />
        )}
      </Box>
      <Text wrap="truncate-end" {...(color && { color: 'yellow' })}>
        {noticeOf(view, data, props.now)}
      </Text>
      <Lines lines={props.prompt} first={0} count={props.prompt.length} color={color} />
      <Text wrap="truncate-end" dimColor={color}>
        {detailKeyHints(view, props.facts, width)}
      </Text>
    </Box>
  );
}

/** `count` lines of `lines` from the line numbered `first`, each keyed by its number in the text. */
function Lines(props: {
  readonly lines: readonly Line[];
  readonly first: number;
  readonly count: number;
  readonly color: boolean;
}) {
  const shown: ReactNode[] = [];
  for (let number = props.first; number < Math.min(props.lines.length, props.first + props.count); number += 1) {
    const line = props.lines[number] as Line;
    shown.push(
      <Text key={number} wrap="truncate-end" {...toneStyle(line.tone, props.color)}>
        {line.text === '' ? ' ' : line.text}
      </Text>,
    );
  }
  return <>{shown}</>;
}

/** The timeline's rows that fit, the selection kept in the middle; with none selected, the newest. */
function Timeline(props: {
  readonly events: readonly TimelineEvent[];
  readonly selected: number | undefined;
  readonly filtered: boolean;
  readonly height: number;
  readonly width: number;
  readonly color: boolean;
}) {
  const { events, height, color } = props;
  if (events.length === 0) {
    return <Text dimColor={color}>{props.filtered ? '  No event matches the filter.' : '  No event yet.'}</Text>;
  }
  const index = events.findIndex((event) => event.id === props.selected);
  const top =
    index < 0
      ? Math.max(0, events.length - height)
      : Math.min(Math.max(0, index - Math.floor(height / 2)), Math.max(0, events.length - height));
  return (
    <>
      {events.slice(top, top + height).map((event) => {
        const selected = event.id === props.selected;
        return (
          <Text
            key={event.id}
            wrap="truncate-end"
            inverse={color && selected}
            {...toneStyle(eventTone(event.record), color && !selected)}
          >
            {`${selected ? '›' : ' '} ${eventRow(event.record, props.width - 2)}`}
          </Text>
        );
      })}
    </>
  );
}

function streamNote(stream: string): string {
  if (stream === 'live') return '● live';
  if (stream === 'ended') return 'ended';
  if (stream === 'connecting') return 'connecting…';
  return `stream: ${stream}`;
}

/**
 * The notice line: the filter being typed, a message's delivery, what the last action did, the
 * wait, or on the timeline the selected record's whole line.
 */
function noticeOf(view: DetailState, data: DetailData, now: number): string {
  if (view.editing) return `/ ${view.filter}▏ (type, harness or words; Enter keeps it, Esc leaves)`;
  if (view.awaitedTurn !== undefined) {
    const delivered = deliveredTo(
      data.events.map((event) => event.record),
      view.awaitedTurn,
    );
    if (delivered !== undefined) return `Delivered to ${delivered} (turn ${view.awaitedTurn}).`;
  }
  if (view.notice !== undefined) return view.notice;
  const waiting =
    data.summary !== undefined && !(data.summary instanceof Error) && data.summary.execution.state === 'waiting';
  if (waiting && data.wait !== undefined) return `Waiting: ${describeWait(data.wait, new Date(now))}. R resumes now.`;
  if (view.tab === 'events' && view.openEvent === undefined) {
    // A row is cut at the width; the selected one's whole line is here.
    const selected = data.events.find((event) => event.id === view.selectedEvent);
    if (selected !== undefined) return describeEvent(selected.record);
  }
  return ' ';
}

/** Ink's `color` prop, absent when there is none (exactOptionalPropertyTypes). */
function colorProp(color: string | undefined): { color?: string } {
  return color === undefined ? {} : { color };
}
