/**
 * Records an execution's driver appends beside the engine (a cancel or a switch asked, a follow-up
 * queued, a command refused): the service's owner (service/owner.ts) and the cluster worker's
 * command relay (cluster/command-relay.ts) both write them this way. Each call opens the execution's
 * log, appends, and closes it again; the log's appends are whole `O_APPEND` lines (events/log.ts), so
 * they interleave with the engine's own handle line by line, never within one.
 */
import { writeFileSync } from 'node:fs';
import { type HomePaths, PRIVATE_FILE_MODE } from '../core/home.js';
import { openEventLog } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';
import type { Store } from '../store/store.js';
import { Recorder } from './recorder.js';

/**
 * Appends what `write` records to the log of `execution` under `home`, handing each record to
 * `onRecord` as the engine's recorder does. Throws what the log throws (an invalid record).
 */
export function appendOwnRecords(
  home: HomePaths,
  execution: string,
  onRecord: ((record: EventRecord) => void) | undefined,
  write: (recorder: Recorder) => void,
): void {
  const log = openEventLog(home.eventsFile(execution), { execution });
  try {
    write(new Recorder(log, execution, onRecord));
  } finally {
    log.close();
  }
}

/**
 * Ends `execution`, canceled while it waited for a slot (the service's owner: a new execution, or
 * one reopened or recovered, whose attempts have all ended) or before a cluster worker made its
 * workspace: `execution.ended` on its log, its `ended` marker, then its record `canceled`. No
 * attempt runs, so there is nothing to stop or save.
 */
export async function endCanceledWhileQueued(
  home: HomePaths,
  store: Store,
  execution: string,
  onRecord: ((record: EventRecord) => void) | undefined,
): Promise<void> {
  const message = 'canceled while queued';
  // A reopened execution waits for its slot as `queued` too: its earlier attempts still count.
  const attempts = (await store.getExecution(execution))?.attemptCount ?? 0;
  appendOwnRecords(home, execution, onRecord, (recorder) =>
    recorder.executor('execution.ended', { state: 'canceled', attempts, durationMs: 0, message }),
  );
  writeFileSync(home.endedMarker(execution), 'canceled\n', { mode: PRIVATE_FILE_MODE });
  await store.updateExecution(execution, { state: 'canceled', endedAt: new Date().toISOString(), message });
}
