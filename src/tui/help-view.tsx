/** @jsxImportSource react */
/**
 * The `?` overlay: every shortcut of the scopes active where it was opened (help.ts), and how to
 * close it. An execution's help is longer than a 24-line terminal: the lines scroll with the
 * terminal's scroll keys (`j`/`k`, pages, `g`/`G`; ui-state.ts keeps the position), and the title
 * says so and how many lines are out of sight.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { helpHeight, helpLines, type Scope } from './help.js';
import { type Scroll, topLine } from './scroll.js';

export function HelpView(props: {
  readonly scopes: readonly Scope[];
  readonly scroll: Scroll;
  readonly width: number;
  readonly height: number;
  readonly color: boolean;
}) {
  const lines = helpLines(props.scopes);
  const height = helpHeight(props.height);
  const top = topLine(props.scroll, lines.length, height);
  const hidden = lines.length - Math.min(lines.length, top + height) + top;
  const shown: ReactNode[] = [];
  // Each line keyed by its number in the help: lines repeat (blank ones), their number does not.
  for (let number = top; number < Math.min(lines.length, top + height); number += 1) {
    const line = lines[number] ?? '';
    shown.push(
      <Text key={number} wrap="truncate-end">
        {line === '' ? ' ' : line}
      </Text>,
    );
  }
  return (
    <Box flexDirection="column" width={props.width}>
      <Text bold={props.color} wrap="truncate-end">
        {hidden > 0 ? `Shortcuts (? or Esc closes; j/k scroll, ${hidden} more lines)` : 'Shortcuts (? or Esc closes)'}
      </Text>
      {shown}
    </Box>
  );
}
