/**
 * Recorder appends an execution's records to its events.jsonl with the envelope filled in: time,
 * execution id, and — for everything that concerns an attempt — the attempt number and the
 * harness's name. It also hands each record to an optional listener (the CLI's live timeline).
 * Owned by the engine for the execution's lifetime; the engine closes the log.
 */
import type { EventData, EventRecord, EventSource, EventType, HarnessEvent } from '../events/schema.js';

/** Where records go: the event log (or any sink with the same contract). */
export interface RecordSink {
  append(record: EventRecord): void;
}

/** The attempt a record concerns. */
export interface AttemptRef {
  readonly number: number;
  readonly harness: string;
}

export class Recorder {
  constructor(
    private readonly sink: RecordSink,
    private readonly execution: string,
    private readonly listener?: (record: EventRecord) => void,
  ) {}

  /** True when a listener takes the records (then the engine relays those other processes append). */
  get hasListener(): boolean {
    return this.listener !== undefined;
  }

  /** Hands a record another process appended to the log (a gate's) to the listener; writes nothing. */
  relay(record: EventRecord): void {
    this.listener?.(record);
  }

  /** Appends a record made by the engine; pass `attempt` when it concerns one. */
  executor<T extends EventType>(type: T, data: EventData<T>, attempt?: AttemptRef): void {
    this.write('executor', type, data, attempt);
  }

  /** Appends a record of the gates that ran in this process (on a harness's stream, after the fact). */
  gate<T extends EventType>(type: T, data: EventData<T>, attempt: AttemptRef): void {
    this.write('gate', type, data, attempt);
  }

  /** Appends a record parsed from a harness's output. */
  harness(event: HarnessEvent, attempt: AttemptRef): void {
    this.write('harness', event.type, event.data, attempt);
  }

  private write<T extends EventType>(source: EventSource, type: T, data: EventData<T>, attempt?: AttemptRef): void {
    const record = {
      ts: new Date().toISOString(),
      execution: this.execution,
      ...(attempt && { attempt: attempt.number, harness: attempt.harness }),
      source,
      type,
      data,
    } as EventRecord;
    this.sink.append(record);
    this.listener?.(record);
  }
}
