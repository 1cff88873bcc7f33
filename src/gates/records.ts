/**
 * How the gate runner writes to an execution's events.jsonl from its own process: each record is one
 * whole line, written with a single `write(2)` on a descriptor opened with `O_APPEND`, so it never
 * tears or interleaves with the engine's lines (the log contract, ARCHITECTURE.md). Records name the
 * attempt and its harness and carry `source: "gate"`.
 *
 * Unlike the engine's writer (events/log.ts) it does not re-validate each record with the schema:
 * that costs the zod import, about half a bare Node start, around every tool call. The records are
 * typed against the same union instead, and the gate tests read them back through the schema.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../core/home.js';
import { boundedLine } from '../events/bound.js';
import type { EventRecord } from '../events/schema.js';

/** A record's type and data, as the gate runner produces them. */
export type GateRecord = {
  [R in EventRecord as R['type']]: { readonly type: R['type']; readonly data: R['data'] };
}[EventRecord['type']];

/** Who the records are for. */
export interface RecordTarget {
  readonly eventsPath: string;
  readonly execution: string;
  readonly attempt: number;
  /** Absent only when the runner could not learn it (its gates file was unreadable). */
  readonly harness?: string;
}

/** Appends `records` in order. Throws the file system's error (the runner records nothing else then). */
export function appendGateRecords(target: RecordTarget, records: readonly GateRecord[]): void {
  if (records.length === 0) return;
  const fd = openSync(target.eventsPath, 'a', PRIVATE_FILE_MODE);
  try {
    for (const record of records) {
      const line: EventRecord = {
        ts: new Date().toISOString(),
        execution: target.execution,
        attempt: target.attempt,
        ...(target.harness !== undefined && { harness: target.harness }),
        source: 'gate',
        ...record,
      } as EventRecord;
      // Bounded as the engine's log writer bounds its own (events/bound.ts); one that cannot be cut to fit is dropped.
      const bounded = boundedLine(line);
      if (bounded !== undefined) writeSync(fd, `${bounded}\n`);
    }
  } finally {
    closeSync(fd);
  }
}
