/**
 * Gates across a quota switch, end to end with the simulator playing Claude Code and then Codex (each
 * running the hooks HarmFlow installs, as the real CLIs do) and the fake forge: the first attempt
 * opens a pull request and runs out of quota; the second, careless, tries to open another — the
 * nothing-twice gate refuses it, the execution still completes, and the gate's records are in the
 * execution's history, on the timelines.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatRecord } from '../../src/cli/timeline.js';
import { readEvents } from '../../src/events/log.js';
import { describeEvent } from '../../src/web/describe-event.js';
import { type Bench, FORGE_BIN, makeBench, simulated } from '../execution/fixture.js';

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

describe('gates across a switch (simulated claude-code → codex)', () => {
  it('refuses the second attempt’s second pull request; the execution completes with one pull request', async () => {
    const first = bench.scenario('first', {
      steps: [
        { write: { path: 'dates.js', content: 'export const parse = (s) => new Date(s);\n' } },
        { commit: 'Add parse' },
        { push: null },
        { pr: { title: 'Add parse', body: 'Parses dates.' } },
        { end: 'quota' },
      ],
    });
    const second = bench.scenario('second', {
      steps: [
        { run: 'gh pr create --title "Add parse, again" --body "A second one."' },
        { say: 'The pull request was already open; I left it as it is.' },
        { end: 'complete' },
      ],
    });
    const task = bench.task({
      harness: simulated('claude-code', first),
      fallbacks: [simulated('codex', second)],
      timeout: '2m',
    });
    const result = await bench.run(task);
    expect(result.state).toBe('succeeded');

    const records = await readEvents(bench.home.eventsFile(result.id));
    const denied = records.filter((record) => record.type === 'gate.denied');
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ attempt: 2, harness: 'codex', source: 'gate', data: { gate: 'nothing-twice' } });
    const message = denied[0]?.type === 'gate.denied' ? denied[0].data.message : '';
    expect(message).toMatch(/already has a pull request, \S+\/pull\/1 \(#1\), by attempt 1 \(claude-code\)/);

    // The first attempt's pull request was recorded by the gate, after the call, once.
    const pullRequests = records.filter((record) => record.type === 'operation' && record.data.kind === 'pull_request');
    expect(pullRequests).toMatchObject([{ attempt: 1, harness: 'claude-code', source: 'gate' }]);

    const listed = execFileSync(`${FORGE_BIN}/gh`, ['pr', 'list', '--state', 'all', '--json', 'url'], {
      cwd: bench.repo,
      env: { ...process.env, HARMFLOW_FORGE_DIR: bench.forgeDir },
      encoding: 'utf8',
    });
    expect(JSON.parse(listed)).toHaveLength(1);

    const deniedRecord = denied[0];
    if (deniedRecord === undefined) throw new Error('no gate.denied record');
    expect(formatRecord(deniedRecord)).toMatch(
      /gate\.denied\s+gate nothing-twice refused Bash: HarmFlow's nothing-twice gate/,
    );
    expect(describeEvent(deniedRecord)).toMatch(/^gate nothing-twice refused Bash: /);
  }, 60_000);

  it('a failed call reaches the gates with its exit code (Claude Code’s PostToolUseFailure, as sim plays it)', async () => {
    const scenario = bench.scenario('fails', { steps: [{ run: 'echo failing; exit 3' }, { end: 'complete' }] });
    // A custom gate runs in the worktree, inside the sandbox with the harness: it keeps what it reads there.
    const task = bench.task({
      harness: simulated('claude-code', scenario),
      gates: { custom: [{ name: 'keep', command: 'cat >> post.jsonl', events: ['PostToolUse'] }] },
    });
    const result = await bench.run(task);
    expect(result.state).toBe('succeeded');
    const post = JSON.parse(readFileSync(join(bench.home.worktree(result.id), 'post.jsonl'), 'utf8')) as {
      call: { command: string };
      result: unknown;
    };
    expect(post.call.command).toBe('echo failing; exit 3');
    expect(post.result).toStrictEqual({ ok: false, output: 'Exit code 3\nfailing', exitCode: 3 });
  }, 60_000);
});
