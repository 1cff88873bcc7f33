/** Real `events.jsonl` files for the event mirror's tests, written by `openEventLog`. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type EventDraft, openEventLog } from '../../../src/events/log.js';

/** A harness's message. */
export function message(text: string): EventDraft {
  return { source: 'harness', attempt: 1, harness: 'codex', type: 'message', data: { text } };
}

/** A tool call whose input keeps its keys' order and a number jsonb would rewrite. */
export function toolCall(id: string): EventDraft {
  return {
    source: 'harness',
    attempt: 1,
    harness: 'codex',
    type: 'tool.call',
    data: { id, name: 'shell', input: { zeta: 1, alpha: 1.5e-7, nul: 'a\u0000b' } },
  };
}

export const ended: EventDraft = {
  source: 'executor',
  type: 'execution.ended',
  data: { state: 'succeeded', attempts: 1, durationMs: 5 },
};

/** `count` messages then `execution.ended`: `count + 1` records. */
export function history(count: number): EventDraft[] {
  return [...Array.from({ length: count }, (_, index) => message(`m-${index}`)), ended];
}

/**
 * A temporary directory for the logs of the calling describe block (or file), made before its tests
 * and removed after them: a skipped block makes none.
 */
export function logDirectory(): { readonly path: (name: string) => string } {
  let root: string | undefined;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'harmflow-mirror-'));
  });
  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });
  return {
    path: (name) => {
      if (root === undefined) throw new Error('the log directory is made before the tests');
      return join(root, name, 'events.jsonl');
    },
  };
}

/** Appends `drafts` to the log of `execution` at `path` with `openEventLog`; returns the file's lines. */
export function writeLog(path: string, execution: string, drafts: readonly EventDraft[]): string[] {
  const log = openEventLog(path, { execution });
  try {
    for (const draft of drafts) log.append(draft);
  } finally {
    log.close();
  }
  return readFileSync(path, 'utf8').split('\n').slice(0, -1);
}
