/** @jsxImportSource react */
/**
 * An opened workflow run in the terminal UI: its workflow, state and whole id on top; the window of
 * its text (run-rows.ts's `runViewLines`: its facts, its steps' progress, where to review it) that
 * the scroll position shows; a notice line (what went wrong reading it, while it does); the keys.
 * Read only: the review is the Workbench's (`harmflow workflow review` on the command line).
 * Everything it draws is given: the app computed the lines, so the keys and the screen agree.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { Line } from './detail/lines.js';
import type { ListedRun } from './run-rows.js';
import { type Scroll, topLine } from './scroll.js';
import { stateColor, toneStyle } from './theme.js';

/** The header, notice and keys lines: what an opened run spends besides its text. */
export const RUN_CHROME_LINES = 3;

/** The lines of text an opened run shows in a terminal `height` lines high. */
export function runBodyHeight(height: number): number {
  return Math.max(1, height - RUN_CHROME_LINES);
}

export function RunView(props: {
  readonly run: ListedRun;
  readonly lines: readonly Line[];
  readonly scroll: Scroll;
  readonly error: Error | undefined;
  readonly width: number;
  readonly height: number;
  readonly color: boolean;
}) {
  const { run, lines, color } = props;
  const bodyHeight = runBodyHeight(props.height);
  const top = topLine(props.scroll, lines.length, bodyHeight);
  const shown: ReactNode[] = [];
  for (let number = top; number < Math.min(lines.length, top + bodyHeight); number += 1) {
    const line = lines[number] as Line;
    shown.push(
      <Text key={number} wrap="truncate-end" {...toneStyle(line.tone, color)}>
        {line.text === '' ? ' ' : line.text}
      </Text>,
    );
  }
  const state = stateColor(run.state, color);
  return (
    <Box flexDirection="column" width={props.width}>
      <Text wrap="truncate-end">
        {`${run.workflow} · `}
        <Text {...(state !== undefined && { color: state })}>{run.state}</Text>
        {` · ${run.id}`}
      </Text>
      <Box flexDirection="column" height={bodyHeight}>
        {shown}
      </Box>
      <Text wrap="truncate-end" {...(color && props.error !== undefined && { color: 'red' })}>
        {props.error === undefined ? ' ' : `Cannot read the run: ${props.error.message}`}
      </Text>
      <Text wrap="truncate-end" dimColor={color}>
        j/k scroll · Esc back · ? keys · q quit
      </Text>
    </Box>
  );
}
