/**
 * The gates on the stream of a harness without hooks: run on each parsed `tool.call`, after the fact,
 * they record what they would have refused (`gate.flagged`) and learn the attempt's own pushes, kept
 * in the attempt's directory, so a later rewrite of that push is flagged, in a later turn too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatesConfig } from '../../src/core/gates-config.js';
import type { EventRecord } from '../../src/events/schema.js';
import { Recorder } from '../../src/execution/recorder.js';
import { StreamGates } from '../../src/execution/stream-gates.js';

const WORKTREE = '/srv/harmflow/worktrees/e1';
const BRANCH = 'harmflow/notes-e1';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-stream-gates-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The gates of one turn of attempt 2 in `dir`, and the records they made. */
function gates() {
  const records: EventRecord[] = [];
  const recorder = new Recorder({ append: (record) => records.push(record) }, 'e1');
  const stream = new StreamGates(
    {
      execution: 'e1',
      attempt: 2,
      harness: 'future-cli',
      eventsPath: '/srv/harmflow/runs/e1/events.jsonl',
      settings: GatesConfig.parse({}),
      facts: { worktree: WORKTREE, tmpdir: '/tmp', branch: BRANCH, baseBranch: 'main', pushes: [], pullRequests: [] },
    },
    dir,
    recorder,
    { number: 2, harness: 'future-cli' },
  );
  return { records, stream };
}

const shell = (id: string, command: string) =>
  ({ type: 'tool.call', data: { id, name: 'shell', input: { command }, shell: command } }) as const;

describe('StreamGates', () => {
  it('flags a call a gate would have refused, naming the gate, and lets an ordinary one pass unrecorded', () => {
    const { records, stream } = gates();
    stream.observe(shell('c1', 'npm test'));
    stream.observe(shell('c2', 'git push --force origin HEAD:main'));
    expect(records).toMatchObject([
      {
        source: 'gate',
        attempt: 2,
        harness: 'future-cli',
        type: 'gate.flagged',
        data: {
          gate: 'commands',
          tool: 'shell',
          toolId: 'c2',
          message: expect.stringMatching(/^HarmFlow's commands gate refused/),
        },
      },
    ]);
  });

  it('learns the attempt’s push and flags a later force-push of it, in a later turn too', () => {
    const { records, stream } = gates();
    stream.observe(shell('c1', 'git push -u origin HEAD'));
    stream.learn([{ kind: 'push', command: 'git push -u origin HEAD', ok: true, remote: 'origin', branch: BRANCH }]);
    stream.observe(shell('c2', 'git push --force'));
    expect(records.map((record) => record.type === 'gate.flagged' && record.data.gate)).toEqual(['nothing-twice']);

    const nextTurn = gates();
    nextTurn.stream.observe(shell('c3', 'git push --force'));
    expect(nextTurn.records.map((record) => record.type === 'gate.flagged' && record.data.gate)).toEqual([
      'nothing-twice',
    ]);
  });
});
