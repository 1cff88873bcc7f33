/** @jsxImportSource react */
/**
 * The split preview's pane (preview-lines.ts): `height` lines, the first of the selected execution's
 * preview (none when no execution is selected), each behind a `│ ` edge that parts it from the list
 * and cut to `width`. Stateless: the app gives the lines.
 */
import { Box, Text } from 'ink';
import type { Line } from './detail/lines.js';
import { toneStyle } from './theme.js';

/** The `│ ` edge before each line. */
export const EDGE_WIDTH = 2;

export function PreviewView(props: {
  readonly lines: readonly Line[];
  readonly width: number;
  readonly height: number;
  readonly color: boolean;
}) {
  const shown = Array.from({ length: Math.max(0, props.height) }, (_, number) => props.lines[number]);
  return (
    <Box flexDirection="column" width={props.width}>
      {shown.map((line, number) => (
        // The lines are the preview's text from its top: their number is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Text key={number} wrap="truncate-end">
          <Text dimColor={props.color}>│ </Text>
          <Text {...toneStyle(line?.tone, props.color)}>
            {line === undefined || line.text === '' ? ' ' : line.text}
          </Text>
        </Text>
      ))}
    </Box>
  );
}
