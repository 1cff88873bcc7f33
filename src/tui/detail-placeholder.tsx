/** @jsxImportSource react */
/**
 * What `Enter` on a row opens for now: which execution it is, and that its detail view (the
 * Workbench's Summary, Events, Transcript and Changes tabs) is not in the terminal UI yet, with
 * where the Workbench shows it. `Esc` goes back to the list (the app's keys).
 */
import { Box, Text } from 'ink';
import type { ListedExecution } from './rows.js';

export function DetailPlaceholder(props: {
  readonly execution: ListedExecution;
  readonly serviceUrl: string | undefined;
  readonly width: number;
  readonly color: boolean;
}) {
  const { execution } = props;
  const where = `${props.serviceUrl ?? ''}/executions/${execution.id}`;
  return (
    <Box flexDirection="column" width={props.width}>
      <Text bold={props.color} wrap="truncate-end">{`Execution ${execution.id}`}</Text>
      <Text wrap="truncate-end">{`task ${execution.taskName} · ${execution.state} · ${execution.currentHarness ?? '–'} · attempt ${execution.attemptCount}`}</Text>
      <Text> </Text>
      <Text wrap="truncate-end">The execution view (Summary, Events, Transcript, Changes tabs)</Text>
      <Text wrap="truncate-end">is not in the terminal UI yet; the Workbench shows it at</Text>
      <Text wrap="truncate-end">{`  ${where}`}</Text>
      <Text> </Text>
      <Text wrap="truncate-end">Esc: back to the list · ?: shortcuts · q: quit</Text>
    </Box>
  );
}
