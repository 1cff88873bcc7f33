/** @jsxImportSource react */
/**
 * The terminal UI (`harmflow ui`): the Executions (live) and History (ended) screens as tables,
 * driven by the Workbench's keymaps (src/web/keys/) through the shared `dispatch`, plus the
 * terminal's own `Tab` (next screen) and `q` (quit). `Enter` opens a placeholder that names the
 * execution: the detail view with its tabs is not built yet.
 *
 * What keys do to the state is `ui-state.ts`'s reducer; this component feeds it Ink's input with
 * the rows `usePolledList` last received (through a ref, so a press never sees a stale list), quits
 * when the state says so, and draws the view the state asks for in the size from the props (tests)
 * or the terminal, following its resizes.
 */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useReducer, useRef, useState } from 'react';
import { DetailPlaceholder } from './detail-placeholder.js';
import { HelpView } from './help-view.js';
import { keyPressOf } from './key-press.js';
import { ListView } from './list-view.js';
import { SCREEN_TITLES, SCREENS } from './rows.js';
import type { ExecutionSource } from './source.js';
import { INITIAL_STATE, type PressEvent, reduce, scopesOf, selectedIndex, shownRows } from './ui-state.js';
import { POLL_MS, usePolledList } from './use-list.js';

export interface AppProps {
  readonly source: ExecutionSource;
  /** False under `NO_COLOR` (theme.ts). */
  readonly color: boolean;
  /** The service's URL, for the placeholder's pointer to the Workbench. */
  readonly serviceUrl?: string;
  /** The size to draw in; default the terminal's (80×24 when it does not say). */
  readonly width?: number;
  readonly height?: number;
  readonly pollMs?: number;
}

/** Header, column titles, status line and key hints: the lines a list screen spends besides its rows. */
const CHROME_LINES = 4;

export function App(props: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize(props.width, props.height);
  const [state, send] = useReducer(reduce, INITIAL_STATE);
  const list = usePolledList(props.source, state.screen, props.pollMs ?? POLL_MS);
  const rows = useRef<PressEvent['rows']>(list.rows);
  rows.current = list.rows;
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit, exit]);
  useInput((input, key) => send({ press: keyPressOf(input, key, false), input, rows: rows.current }));

  if (state.help) return <HelpView scopes={scopesOf(state)} width={size.width} color={props.color} />;
  if (state.opened !== undefined) {
    return (
      <DetailPlaceholder
        execution={state.opened}
        serviceUrl={props.serviceUrl}
        width={size.width}
        color={props.color}
      />
    );
  }
  const all = list.rows[state.screen];
  const shown = shownRows(state, list.rows);
  const emptyText =
    all === undefined
      ? 'Loading…'
      : all.length > 0
        ? 'No execution matches the filter.'
        : state.screen === 'executions'
          ? 'Nothing is running, queued or waiting. Submit a task with `harmflow submit`.'
          : 'No execution has ended yet.';
  const status =
    list.error !== undefined
      ? `Cannot reach the service: ${list.error}`
      : state.editing
        ? `/ ${state.filter}▏ (task or id prefix; Enter keeps it, Esc leaves)`
        : state.filter !== ''
          ? `/ ${state.filter}  (Esc clears)`
          : ' ';
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
        {all === undefined ? '' : ` ${shown.length} of ${all.length}`}
      </Text>
      <ListView
        screen={state.screen}
        rows={shown}
        selected={selectedIndex(state, shown)}
        width={size.width}
        height={size.height - CHROME_LINES}
        now={now}
        color={props.color}
        emptyText={emptyText}
      />
      <Text wrap="truncate-end" {...(props.color && list.error !== undefined && { color: 'red' })}>
        {status}
      </Text>
      <Text wrap="truncate-end" dimColor={props.color}>
        ? shortcuts · Tab screens · j/k move · / filter · Enter open · q quit
      </Text>
    </Box>
  );
}

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
