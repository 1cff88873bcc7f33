/**
 * The terminal UI's execution detail against a real `harmflow serve` (a child process running
 * simulated executions), rendered with Ink's test renderer at 80×24 and driven by keys: open an
 * execution from the list, step with `n` through its Events to the quota event and the switch and
 * read the harness names there, open the switch's record, send a follow-up from the Transcript and
 * see it delivered; on a second execution, `C` asks and `n` leaves it running, then `S` switches it
 * to codex after asking which harness; a third waits for its reset, and `R` resumes it after asking;
 * once it has ended, a message reopens it and the view follows its stream again. A fourth reports
 * "Open a pull request" completed without opening one: its Summary marks the item in words (the
 * renderer draws no colour here), and its timeline has the warning that every commit failed.
 */
import { cleanup } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_TOKEN } from '../e2e/daemon.js';
import { type Bench, simulated } from '../execution/fixture.js';
import { frameWhere, KEYS, lineWith, selectedLine } from './frames.js';
import { openFromList, type RenderedApp, renderApp } from './open-app.js';
import {
  NOT_SEEN,
  notesThenOutOfQuota,
  pullRequestNotSeen,
  type SimulatedService,
  startSimulatedService,
} from './simulated-service.js';

/** A frame from the service can take a scenario's pace; 30 s bounds the slowest wait. */
const LIVE_MS = 30_000;

let service: SimulatedService;
let bench: Bench;

beforeAll(async () => {
  service = await startSimulatedService();
  bench = service.bench;
}, 60_000);

afterEach(() => cleanup());

afterAll(() => service?.close());

const submit = (task: Record<string, unknown>) => service.submit(task);
const stateOf = (id: string) => service.stateOf(id);

/** The app on the daemon, with `id` opened from the Executions screen. */
async function openExecution(id: string): Promise<RenderedApp> {
  const app = renderApp(service.daemon.url, DAEMON_TOKEN, 200);
  await openFromList(app, id, LIVE_MS);
  return app;
}

describe('harmflow ui, an execution', () => {
  it('steps to the quota event and the switch, reads the harnesses, and sends a message', {
    timeout: 90_000,
  }, async () => {
    const first = notesThenOutOfQuota(bench);
    const second = bench.scenario('second', {
      pace: '700ms',
      steps: [
        { say: 'Picking up from the handoff.' },
        { say: 'Checking the notes.' },
        { say: 'Still working.' },
        { say: 'Almost there.' },
        { say: 'Done with the notes.' },
        { end: 'complete' },
      ],
    });
    const id = await submit({
      name: 'notes',
      prompt: 'Add a NOTES.md file.',
      harness: simulated('claude-code', first),
      fallbacks: [simulated('codex', second)],
    });
    const { lastFrame, stdin } = await openExecution(id);
    for (const line of (lastFrame() ?? '').split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    // Events: once codex's attempt has started, `n` walks the switch story.
    stdin.write('2');
    await frameWhere(lastFrame, (frame) => frame.includes('[2 Events]'));
    await frameWhere(lastFrame, (frame) => frame.includes('attempt 2 on codex'), LIVE_MS);
    const seen: string[] = [];
    let switchLine = '';
    for (let press = 0; press < 5; press += 1) {
      const before = selectedLine(lastFrame() ?? '');
      stdin.write('n');
      const frame = await frameWhere(lastFrame, (text) => selectedLine(text) !== before);
      seen.push(selectedLine(frame));
      // The row is cut at 80 columns; the notice line under the timeline has the selected record's whole line.
      if (press === 3) switchLine = frame.split('\n').find((line) => line.startsWith('claude-code → codex')) ?? '';
    }
    expect(seen.map((line) => /#\d+\s+(\S+)\s+(\S+)/.exec(line)?.slice(1).join(' '))).toEqual([
      'claude-code attempt.started',
      'claude-code quota.exhausted',
      'claude-code attempt.ended',
      'claude-code failover',
      'codex attempt.started',
    ]);
    expect(switchLine).toBe('claude-code → codex (quota_exhausted; switch 1 of 1)');

    // Back to the switch with N, and open its whole record: it names both harnesses.
    stdin.write('N');
    await frameWhere(lastFrame, (frame) => selectedLine(frame).includes('failover'));
    stdin.write(KEYS.enter);
    let frame = await frameWhere(lastFrame, (text) => text.includes('"to": "codex"'));
    expect(frame).toContain('"from": "claude-code"');
    stdin.write(KEYS.escape);
    await frameWhere(lastFrame, (text) => selectedLine(text).includes('failover'));

    // Transcript: `m` opens the message box; Enter sends; the stream says when codex has it.
    stdin.write('3');
    await frameWhere(lastFrame, (text) => text.includes('[3 Transcript]'));
    stdin.write('m');
    await frameWhere(lastFrame, (text) => text.includes('Message: ▏'));
    for (const character of 'Also mention the date.') stdin.write(character);
    await frameWhere(lastFrame, (text) => text.includes('Message: Also mention the date.▏'));
    stdin.write(KEYS.enter);
    frame = await frameWhere(lastFrame, (text) => /Delivered to codex \(turn t\d+\)\./.test(text), LIVE_MS);
    await frameWhere(lastFrame, (text) => text.includes('Also mention the date.') && !text.includes('Message:'));

    // Summary names the chain as it ran.
    stdin.write('1');
    frame = await frameWhere(lastFrame, (text) => /1 +claude-code/.test(text) && /2 +codex/.test(text), LIVE_MS);
    expect(lineWith(frame, 'claude-code')).toMatch(/quota_exhausted/);
  });

  it('marks an item its harness reported done without the evidence, in words a colourless terminal keeps', {
    timeout: 60_000,
  }, async () => {
    const id = await submit({
      name: 'pull-request',
      prompt: 'Open a pull request.',
      harness: simulated('claude-code', pullRequestNotSeen(bench)),
    });
    // Rendered without colour (NO_COLOR): every mark must be in the text.
    const { lastFrame, stdin } = await openExecution(id);
    await frameWhere(lastFrame, (frame) => /succeeded/.test(frame.split('\n')[0] ?? ''), LIVE_MS);
    let frame = await frameWhere(lastFrame, (text) => text.includes('⚠ Warning: every commit failed'), LIVE_MS);
    expect(frame).toContain('the 1 commit it tried left nothing on the');
    stdin.write('G');
    frame = await frameWhere(lastFrame, (text) => text.includes(`⚠ ${NOT_SEEN.item}`), LIVE_MS);
    expect(lineWith(frame, 'reported')).toMatch(/^ {4}reported {7}claude-code plan: completed$/);
    expect(lineWith(frame, '⚠ unconfirmed')).toBe(`    ⚠ unconfirmed  ${NOT_SEEN.unconfirmed}`);
    expect(lineWith(frame, 'tried')).toMatch(/^ {4}tried {10}commit failed \(exit 1\)/);
    for (const line of frame.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    // The timeline has the warning, marked, among the records.
    stdin.write('2');
    stdin.write('/');
    for (const character of 'workspace.warning') stdin.write(character);
    stdin.write(KEYS.enter);
    frame = await frameWhere(lastFrame, (text) => lineWith(text, '⚠ every commit').includes('workspace.warning'));
  });

  it('asks before canceling, and switches harness after asking which', { timeout: 90_000 }, async () => {
    const slow = bench.scenario('slow-claude', {
      pace: '1s',
      steps: Array.from({ length: 40 }, (_, at) => ({ say: `step ${at + 1}` })),
    });
    const done = bench.scenario('codex-done', { steps: [{ say: 'Taking over.' }, { end: 'complete' }] });
    const id = await submit({
      name: 'switches',
      prompt: 'Work slowly.',
      harness: simulated('claude-code', slow),
      fallbacks: [simulated('codex', done)],
    });
    const { lastFrame, stdin } = await openExecution(id);
    await frameWhere(lastFrame, (frame) => frame.split('\n')[0]?.includes('running on claude-code') === true, LIVE_MS);

    // `C` asks; `n` says no and the execution runs on.
    stdin.write('C');
    await frameWhere(lastFrame, (frame) => frame.includes('Cancel this execution?'));
    stdin.write(KEYS.enter);
    stdin.write('n');
    await frameWhere(lastFrame, (frame) => !frame.includes('Cancel this execution?'));
    expect(await stateOf(id)).toBe('running');

    // `S` asks which harness, codex first (the running one is claude-code); Enter switches.
    stdin.write('S');
    const frame = await frameWhere(lastFrame, (text) => text.includes('Switch harness'));
    expect(lineWith(frame, '› Harness')).toMatch(/^› Harness +claude-code +\[codex\] +gemini +opencode/);
    stdin.write(KEYS.down);
    stdin.write(KEYS.down);
    for (const character of 'slow') stdin.write(character);
    await frameWhere(lastFrame, (text) => lineWith(text, 'Why').includes('slow▏'));
    stdin.write(KEYS.enter);
    await frameWhere(lastFrame, (text) => text.includes('Switch to codex requested.'));
    await frameWhere(lastFrame, (text) => /succeeded/.test(text.split('\n')[0] ?? ''), LIVE_MS);
    // The request is on the timeline: `/` finds it by its line, Enter opens it.
    stdin.write('2');
    await frameWhere(lastFrame, (text) => text.includes('terminal asks to switch to codex'), LIVE_MS);
    stdin.write('/');
    for (const character of 'to codex: slow') stdin.write(character);
    stdin.write(KEYS.enter);
    const filtered = await frameWhere(
      lastFrame,
      (text) => text.includes('/ to codex: slow') && !text.includes('failover'),
    );
    expect(filtered).not.toContain('turn.started');
    stdin.write('j');
    await frameWhere(lastFrame, (text) => selectedLine(text).includes('switch.requested'));
    stdin.write(KEYS.enter);
    const record = await frameWhere(lastFrame, (text) => text.includes('"reason": "slow"'));
    expect(record).toContain('"by": "terminal"');
  });

  it('resumes a waiting execution after asking', { timeout: 90_000 }, async () => {
    const out = bench.scenario('out-for-an-hour', {
      steps: [{ say: 'working' }, { end: { quota: { resetsIn: '1h' } } }],
      turns: [
        { when: 'Attempt 1 — claude-code', steps: [{ say: 'carrying on' }, { end: 'complete' }] },
        { when: 'One more line', steps: [{ say: 'added' }, { end: 'complete' }] },
      ],
    });
    const id = await submit({
      name: 'waits',
      prompt: 'Say something.',
      harness: simulated('claude-code', out),
      waitForReset: true,
      timeout: '2h',
    });
    const { lastFrame, stdin } = await openExecution(id);
    await frameWhere(
      lastFrame,
      (frame) => /Waiting: waiting for claude-code, which resets at \d\d:\d\d \(in (59 min|1 h 00 min)\)/.test(frame),
      LIVE_MS,
    );
    stdin.write('R');
    await frameWhere(lastFrame, (frame) =>
      frame.includes('Resume now? The execution carries on at once, on claude-code'),
    );
    stdin.write('y');
    await frameWhere(lastFrame, (frame) => /succeeded/.test(frame.split('\n')[0] ?? ''), LIVE_MS);
    expect(await stateOf(id)).toBe('succeeded');

    // Its stream has ended; a message reopens the execution, and the view follows it again.
    await frameWhere(lastFrame, (frame) => frame.split('\n')[1]?.endsWith('ended') === true, LIVE_MS);
    stdin.write('m');
    for (const character of 'One more line, please.') stdin.write(character);
    stdin.write(KEYS.enter);
    await frameWhere(lastFrame, (frame) => /Delivered to claude-code \(turn t\d+\)\./.test(frame), LIVE_MS);
    await expect.poll(() => stateOf(id), { timeout: LIVE_MS, interval: 200 }).toBe('succeeded');
  });
});
