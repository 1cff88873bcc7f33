/**
 * The gates with the REAL Claude Code CLI (through the loopback model-API simulator), run by the real
 * engine: the hooks HarmFlow installs with `--settings` call `harmflow gate`; a PreToolUse deny stops
 * the call and the model reads the gate's message as the tool's result; a PostToolUse record of a
 * commit is appended to events.jsonl by the gate's own process while the engine writes the same file,
 * and every line of it stays whole. Runs when HARMFLOW_HARNESS_BIN_DIRS lists the CLIs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEventRecord } from '../../src/events/schema.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import { GIT_IDENTITY, git } from '../execution/fixture.js';
import { REAL_PATH, realCliLab, realHarnessesAvailable } from './real-harnesses.js';

const enabled = realHarnessesAvailable(['claude-code']);

const FORCE_PUSH = 'git push --force origin HEAD:main';
const COMMIT = 'printf "gated\\n" > gated.txt && git add gated.txt && git commit -m "Add gated.txt"';
const FAILING = 'echo failing on purpose; exit 3';

const lab = realCliLab(enabled, () => ({
  gates: [
    { shell: { command: FORCE_PUSH } },
    { shell: { command: COMMIT } },
    { shell: { command: FAILING } },
    'Done: committed gated.txt.',
  ],
}));

describe.skipIf(!enabled)('gates with the real claude-code CLI', () => {
  it('a PreToolUse deny is honoured and read by the model; a PostToolUse commit is recorded by the gate, every line whole; a failed call reaches the gates with its exit code', async () => {
    const connection = connectHarness('claude-code', { url: lab.api.url, script: 'gates' });
    // A custom gate that keeps what it is given after each call: a failed call reaches it too. It runs
    // in the worktree, inside the sandbox with the harness, so it keeps it there.
    const seen = 'post-tool-use.jsonl';
    const task = lab.bench.task({
      harness: {
        harness: 'claude-code',
        env: connection.env,
        args: connection.args,
        passEnv: Object.keys(GIT_IDENTITY),
      },
      timeout: '3m',
      gates: { custom: [{ name: 'keep', command: `cat >> ${seen}; echo >> ${seen}`, events: ['PostToolUse'] }] },
    });
    const baseMain = git(lab.bench.origin, 'rev-parse', 'main');
    const result = await lab.bench.run(task, { hostEnv: { ...process.env, ...GIT_IDENTITY, PATH: REAL_PATH } });
    expect(result.attempts.map((attempt) => attempt.outcome)).toEqual(['completed']);

    // Every line of the log is a whole record: the gate's process and the engine appended to it together.
    const lines = readFileSync(lab.bench.home.eventsFile(result.id), 'utf8').split('\n').filter(Boolean);
    const records = lines.map((line) => parseEventRecord(line));
    expect(records.filter((record) => record === undefined)).toEqual([]);
    const all = records.filter((record) => record !== undefined);

    // The deny: recorded by the gate, the push never ran, and the model read the gate's message.
    const denied = all.find((record) => record.type === 'gate.denied');
    expect(denied).toMatchObject({ source: 'gate', attempt: 1, harness: 'claude-code', data: { gate: 'commands' } });
    const message = denied?.type === 'gate.denied' ? denied.data.message : '<none>';
    expect(message).toMatch(/^HarmFlow's commands gate refused `git push --force origin HEAD:main`/);
    expect(git(lab.bench.origin, 'rev-parse', 'main')).toBe(baseMain);
    const afterDeny = lab.api.requests.filter((request) => request.script === 'gates' && request.reply === 1);
    expect(afterDeny[0]?.lastToolResult).toContain(message);

    // The commit: one operation record, written by the gate after the call, between the engine's records.
    const commits = all.filter((record) => record.type === 'operation' && record.data.kind === 'commit');
    expect(commits).toHaveLength(1);
    expect(commits[0]).toMatchObject({
      source: 'gate',
      harness: 'claude-code',
      data: { ok: true, subject: 'Add gated.txt' },
    });
    const at = all.indexOf(commits[0] as (typeof all)[number]);
    expect(all.slice(0, at).some((record) => record.source === 'harness')).toBe(true);
    expect(all.slice(at + 1).some((record) => record.source === 'harness' || record.source === 'executor')).toBe(true);
    expect(git(result.worktree, 'log', '-1', '--format=%s')).toBe('Add gated.txt');

    // Claude Code reports the failed call as PostToolUseFailure; the gates read it as a failed call with its exit code.
    const posts = readFileSync(join(lab.bench.home.worktree(result.id), seen), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { call: { command?: string }; result: { ok: boolean; exitCode?: number } });
    expect(posts.map((post) => post.call.command)).toEqual([COMMIT, FAILING]);
    expect(posts[1]?.result).toMatchObject({ ok: false, exitCode: 3 });
  }, 180_000);
});
