/** @jsxImportSource react */
/** The `?` overlay: every shortcut of the scopes active where it was opened (help.ts), and how to close it. */
import { Box, Text } from 'ink';
import { helpLines, type Scope } from './help.js';

export function HelpView(props: {
  readonly scopes: readonly Scope[];
  readonly width: number;
  readonly color: boolean;
}) {
  return (
    <Box flexDirection="column" width={props.width}>
      <Text bold={props.color} wrap="truncate-end">
        Shortcuts (? or Esc closes)
      </Text>
      {helpLines(props.scopes).map((line, index) => (
        // Lines repeat (blank ones): their position is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: a static list, never reordered
        <Text key={index} wrap="truncate-end">
          {line === '' ? ' ' : line}
        </Text>
      ))}
    </Box>
  );
}
