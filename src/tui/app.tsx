/** @jsxImportSource react */
/**
 * The terminal UI (`harmflow ui`): the Executions (live), History (ended) and Workflows (workflow
 * runs) screens as tables, driven by the Workbench's keymaps (src/web/keys/) through the shared
 * `dispatch`, plus the terminal's own `Tab` (next screen) and `q` (quit); `Enter` opens an
 * execution's detail view (detail/): Summary, Events, Transcript and Changes, live, with its
 * actions — or, on Workflows, a run's facts and steps (run-view.tsx), read only: its review is the
 * Workbench's, which the view points to.
 *
 * What keys do to the state is `ui-state.ts`'s reducer; this component feeds it Ink's input with
 * what the presses depend on — the rows `usePolledList` last received, and for an opened execution
 * what `useDetail` knows and how many lines its text has (through refs, so a press never sees a
 * stale list) — runs the requests the state asks for (`useRequests`), quits when the state says so,
 * and draws the view the state asks for in the size from the props (tests) or the terminal,
 * following its resizes. From `SPLIT_MIN_WIDTH` columns the Executions and History screens show the
 * selected execution's preview beside the list (preview-lines.ts), its `context.json` and disk asked
 * only once the frame is drawn (use-preview.ts).
 */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { detailLayout, scrolledText } from './detail/body-text.js';
import { DetailView } from './detail/detail-view.js';
import type { DetailFacts } from './detail/state.js';
import { useDetail } from './detail/use-detail.js';
import { type Settle, useRequests } from './detail/use-requests.js';
import { HelpView } from './help-view.js';
import { keyPressOf } from './key-press.js';
import { ListView } from './list-view.js';
import { previewLines, splitWidths } from './preview-lines.js';
import { EDGE_WIDTH, PreviewView } from './preview-view.js';
import { SCREEN_TITLES, SCREENS, type ScreenRows } from './rows.js';
import { RunListView } from './run-list-view.js';
import { runViewLines, selectedRunLine, standoutCount } from './run-rows.js';
import { RunView, runBodyHeight } from './run-view.js';
import type { ExecutionSource } from './source.js';
import { statusLines } from './status-lines.js';
import { INITIAL_STATE, type PressEvent, reduce, scopesOf, selectedIndex, shownRows } from './ui-state.js';
import { POLL_MS, usePolledList } from './use-list.js';
import { usePreview } from './use-preview.js';
import { usePolledRun } from './use-run.js';

export interface AppProps {
  readonly source: ExecutionSource;
  /** False under `NO_COLOR` (theme.ts). */
  readonly color: boolean;
  /** The size to draw in; default the terminal's (80×24 when it does not say). */
  readonly width?: number;
  readonly height?: number;
  readonly pollMs?: number;
  /** Rows known before the first render (start.tsx), drawn in it; default none (`Loading…`). */
  readonly knownRows?: ScreenRows;
}

/**
 * Header, column titles, status line and key hints: the lines a list screen spends besides its rows;
 * Workflows spends one more, for the selected run's whole id and why, and a status of several lines
 * (status-lines.ts) its others.
 */
const CHROME_LINES = 4;

export function App(props: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize(props.width, props.height);
  const [state, send] = useReducer(reduce, INITIAL_STATE);
  const pollMs = props.pollMs ?? POLL_MS;
  const list = usePolledList(props.source, state.screen, pollMs, props.knownRows);
  const rows = useRef<PressEvent['rows']>(list.rows);
  rows.current = list.rows;
  const [now, setNow] = useState(Date.now());
  const opened = state.opened;
  const { data, followAgain } = useDetail(props.source, opened?.view.execution, opened?.view.tab);
  // A message taken by the service reopens an ended execution: its stream is followed again.
  const awaitedTurn = opened?.view.awaitedTurn;
  useEffect(() => {
    if (awaitedTurn !== undefined) followAgain();
  }, [awaitedTurn, followAgain]);
  const layout = opened === undefined ? undefined : detailLayout(opened.view, size.width, size.height);
  // The summary's durations and wait count with the clock; the other texts change only with their data.
  const tab = opened?.view.tab;
  const openEvent = opened?.view.openEvent;
  const textClock = tab === 'summary' ? now : 0;
  const text = useMemo(
    () =>
      tab === undefined
        ? undefined
        : scrolledText({ tab, openEvent }, data, size.width, new Date(textClock || Date.now())),
    [tab, openEvent, data, size.width, textClock],
  );
  const summary = data.summary instanceof Error ? undefined : data.summary?.execution;
  const executionState = summary?.state ?? opened?.row.state;
  const heightNow = useRef(size.height);
  heightNow.current = size.height;
  const facts = useRef<DetailFacts | undefined>(undefined);
  const detailFacts: DetailFacts | undefined = opened && {
    events: data.events,
    state: executionState,
    harness: summary?.currentHarness ?? opened.row.currentHarness,
    waitingFor: executionState === 'waiting' ? data.wait?.harness : undefined,
    lines: text?.length ?? 0,
    height: layout?.bodyHeight ?? 1,
  };
  facts.current = detailFacts;
  // An opened run's ages move with the clock; nothing else of its text does.
  const runClock = state.run === undefined ? 0 : now;
  const runData = usePolledRun(props.source, state.run?.row.id, pollMs);
  const openedRun = state.run === undefined ? undefined : (runData.answer?.run ?? state.run.row);
  const runSteps = runData.answer?.steps ?? runData.error;
  const runText = useMemo(
    () => openedRun && runViewLines(openedRun, runSteps, props.source.url, size.width, runClock || Date.now()),
    [openedRun, runSteps, props.source.url, size.width, runClock],
  );
  const runFacts = useRef<PressEvent['run']>(undefined);
  runFacts.current = runText && { lines: runText.length, height: runBodyHeight(size.height) };
  const shown = shownRows(state, list.rows);
  const selected = selectedIndex(state, shown.rows);
  const split = splitWidths(size.width);
  const previewed =
    shown.screen !== 'workflows' && split.preview > 0 && opened === undefined && state.run === undefined
      ? shown.rows[selected]
      : undefined;
  const previewData = usePreview(
    props.source,
    previewed?.id,
    previewed === undefined ? '' : `${previewed.state} ${previewed.attemptCount}`,
  );
  const settle = useCallback<Settle>((seq, outcome) => send({ settle: { seq, ...outcome } }), []);
  useRequests(props.source, opened?.view.execution, opened?.view.request, settle);

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit, exit]);
  useInput((input, key) =>
    send({
      press: keyPressOf(input, key, false),
      input,
      rows: rows.current,
      height: heightNow.current,
      ...(facts.current !== undefined && { detail: facts.current }),
      ...(runFacts.current !== undefined && { run: runFacts.current }),
    }),
  );

  if (state.help) {
    return (
      <HelpView
        scopes={scopesOf(state)}
        scroll={state.helpScroll}
        width={size.width}
        height={size.height}
        color={props.color}
      />
    );
  }
  if (opened !== undefined && layout !== undefined && detailFacts !== undefined) {
    return (
      <DetailView
        row={opened.row}
        view={opened.view}
        data={data}
        text={text}
        prompt={layout.prompt}
        bodyHeight={layout.bodyHeight}
        width={size.width}
        now={now}
        color={props.color}
        facts={detailFacts}
      />
    );
  }
  if (state.run !== undefined && openedRun !== undefined && runText !== undefined) {
    return (
      <RunView
        run={openedRun}
        lines={runText}
        scroll={state.run.scroll}
        error={runData.error}
        width={size.width}
        height={size.height}
        color={props.color}
      />
    );
  }
  const all = list.rows[state.screen];
  const emptyText =
    all === undefined
      ? 'Loading…'
      : all.length > 0
        ? `No ${state.screen === 'workflows' ? 'run' : 'execution'} matches the filter.`
        : EMPTY_TEXTS[state.screen];
  const status = statusLines(
    { error: list.error, editing: state.editing, filter: state.filter, screen: state.screen },
    size.width,
  );
  const rowsHeight = size.height - CHROME_LINES - (status.length - 1);
  const standouts = shown.screen === 'workflows' ? standoutCount(list.rows.workflows ?? []) : '';
  const selectedRun = shown.screen === 'workflows' ? shown.rows[selected] : undefined;
  return (
    <Box flexDirection="column" width={size.width}>
      <Text wrap="truncate-end">
        {'HarmFlow  '}
        {SCREENS.map((name) => {
          const current = name === state.screen;
          return (
            <Text key={name} bold={props.color && current} {...(props.color && current && { color: 'cyan' })}>
              {current ? `[${SCREEN_TITLES[name]}] ` : ` ${SCREEN_TITLES[name]}  `}
            </Text>
          );
        })}
        {all === undefined ? '' : ` ${shown.rows.length} of ${all.length}`}
        {standouts === '' ? '' : ` · ${standouts}`}
      </Text>
      {shown.screen === 'workflows' ? (
        <>
          <RunListView
            rows={shown.rows}
            selected={selected}
            width={size.width}
            height={rowsHeight - 1}
            now={now}
            color={props.color}
            emptyText={emptyText}
          />
          <Text wrap="truncate-end">{selectedRun === undefined ? ' ' : selectedRunLine(selectedRun, size.width)}</Text>
        </>
      ) : (
        <Box flexDirection="row" width={size.width}>
          <ListView
            screen={shown.screen}
            rows={shown.rows}
            selected={selected}
            width={split.list}
            height={rowsHeight}
            now={now}
            color={props.color}
            emptyText={emptyText}
          />
          {split.preview > 0 && (
            <PreviewView
              lines={
                previewed === undefined
                  ? []
                  : previewLines(previewed, previewData, split.preview - EDGE_WIDTH, new Date(now))
              }
              width={split.preview}
              height={rowsHeight + 1}
              color={props.color}
            />
          )}
        </Box>
      )}
      {status.map((line, number) => (
        // The status's lines are one text wrapped: their number is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Text key={number} wrap="truncate-end" {...(props.color && list.error !== undefined && { color: 'red' })}>
          {line}
        </Text>
      ))}
      <Text wrap="truncate-end" dimColor={props.color}>
        ? shortcuts · Tab screens · j/k move · / filter · Enter open · q quit
      </Text>
    </Box>
  );
}

/** What a list screen says when it has no row at all. */
const EMPTY_TEXTS = {
  executions: 'Nothing is running, queued or waiting. Submit a task with `harmflow submit`.',
  history: 'No execution has ended yet.',
  workflows: 'No workflow runs yet. Start one with `harmflow workflow run FILE`.',
} as const;

/** The size to draw in: the given one, else the terminal's, following its resizes (80×24 when unknown). */
function useTerminalSize(width: number | undefined, height: number | undefined): { width: number; height: number } {
  const { stdout } = useStdout();
  const [measured, setMeasured] = useState({ width: stdout.columns ?? 80, height: stdout.rows ?? 24 });
  useEffect(() => {
    const onResize = () => setMeasured({ width: stdout.columns ?? 80, height: stdout.rows ?? 24 });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return { width: width ?? measured.width, height: height ?? measured.height };
}
