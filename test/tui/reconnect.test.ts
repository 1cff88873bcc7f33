/**
 * The terminal UI's Events tab across a dropped connection: the App rendered with Ink's test
 * renderer at 80×24 against the service's real app (test/web/served-app.ts, its in-memory fixture)
 * through the CLI's real client. Records appended to the running execution's log show on the
 * timeline; the service cuts every connection; the tabs line says the stream is reconnecting, then
 * `● live` again, and every record — those before the drop, those appended while it was away and
 * those after — shows exactly once, in the order it was appended.
 */
import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventDraft, EventLog } from '../../src/events/log.js';
import { RUNNING_ID, type ServedApp, serveApp, TOKEN } from '../web/served-app.js';
import { frameWhere, lineWith } from './frames.js';
import { openFromList, type RenderedApp, renderApp } from './open-app.js';

/** A reconnection waits the stream's retry time (1 s by default) before it tries again. */
const RECONNECT_MS = 10_000;

/** What codex says in its attempt: one unique word a record, so a row is counted by its word. */
const message = (text: string): EventDraft => ({
  source: 'harness',
  type: 'message',
  attempt: 2,
  harness: 'codex',
  data: { text },
});

let served: ServedApp;
let log: EventLog;

beforeEach(async () => {
  served = await serveApp();
  log = served.eventLog(RUNNING_ID);
});
afterEach(async () => {
  cleanup();
  await served.close();
});

/** The app on the served service, with RUNNING_ID opened from the Executions screen. */
async function openRunning(): Promise<RenderedApp> {
  const app = renderApp(served.url, TOKEN, 50);
  await openFromList(app, RUNNING_ID);
  return app;
}

/** The timeline rows of `frame` that show the message `word`, by their line numbers. */
function rowsWith(frame: string, word: string): number[] {
  const row = new RegExp(`^ {2}\\d\\d:\\d\\d:\\d\\d #2 +codex +message +${word}\\s*$`);
  return frame.split('\n').flatMap((line, number) => (row.test(line) ? [number] : []));
}

describe('harmflow ui, Events across a dropped connection', () => {
  it('shows every record once and in order, and the stream goes back to live', { timeout: 30_000 }, async () => {
    const { lastFrame, stdin } = await openRunning();
    stdin.write('2');
    await frameWhere(lastFrame, (frame) => frame.includes('[2 Events]') && frame.includes('● live'));

    const before = ['alpha', 'bravo', 'charlie'];
    for (const word of before) log.append(message(word));
    await frameWhere(lastFrame, (frame) => before.every((word) => rowsWith(frame, word).length > 0));

    served.dropConnections();
    const lost = await frameWhere(lastFrame, (frame) => !frame.includes('● live'), RECONNECT_MS);
    expect(lineWith(lost, '[2 Events]')).toMatch(/ {2}stream: \S/);

    const away = ['delta', 'echo'];
    for (const word of away) log.append(message(word));
    await frameWhere(lastFrame, (frame) => frame.includes('● live'), RECONNECT_MS);
    const after = ['foxtrot', 'golf'];
    for (const word of after) log.append(message(word));

    const words = [...before, ...away, ...after];
    const frame = await frameWhere(lastFrame, (text) => words.every((word) => rowsWith(text, word).length > 0));
    const rows = words.map((word) => rowsWith(frame, word));
    expect(rows.map((found) => found.length)).toEqual(words.map(() => 1));
    const lines = rows.map((found) => found[0] ?? -1);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    // Nothing selected: the rows are the timeline's newest, and nothing but these seven was recorded.
    expect(frame.split('\n').filter((line) => /^ {2}\d\d:\d\d:\d\d #/.test(line))).toHaveLength(words.length);
    expect(lineWith(frame, '[2 Events]')).toMatch(/ {2}● live\s*$/);
  });
});
