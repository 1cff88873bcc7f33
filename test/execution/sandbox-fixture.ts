/**
 * What the sandbox tests read from an execution's log: whether each scripted shell command succeeded
 * (the simulator's `run` steps, named by their description) and whether each attempt ran sandboxed.
 */
import type { EventRecord } from '../../src/events/schema.js';

/** A simulator step that runs `command`, named `description` in its tool call. */
export const run = (description: string, command: string) => ({ run: { command, description } });

/**
 * Each named `run` step → whether its command succeeded, from the tool calls and their results. A
 * harness whose calls carry no description (Codex) names each by its command.
 */
export function outcomes(records: readonly EventRecord[]): Record<string, boolean> {
  const named = new Map<string, string>();
  const result: Record<string, boolean> = {};
  for (const record of records) {
    if (record.type === 'tool.call') {
      const description = (record.data.input as { description?: string }).description ?? record.data.shell;
      if (description !== undefined) named.set(record.data.id, description);
    }
    if (record.type === 'tool.result') {
      const name = named.get(record.data.id);
      if (name !== undefined) result[name] = record.data.ok;
    }
  }
  return result;
}

/** `attempt.started`'s `sandboxed`, attempt by attempt. */
export function sandboxedFlags(records: readonly EventRecord[]): (boolean | undefined)[] {
  return records.flatMap((record) => (record.type === 'attempt.started' ? [record.data.sandboxed] : []));
}
