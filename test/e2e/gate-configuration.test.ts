/**
 * The gate configuration holds without the OS sandbox, end to end: the simulator plays Claude Code
 * (running the hooks HarmFlow installs, as the real CLI does) in an execution with `sandbox: none`.
 * The agent commits, removes the attempt's gates file (`rm -f "$HARMFLOW_GATE_DIR/gates.json"`, which
 * the gates cannot tell apart from any other file outside the worktree, so they let it run), then
 * force-pushes to main and lists the worktree: both calls are refused, with the reason the agent
 * reads and records saying so, and origin/main is untouched.
 *
 * And with the REAL Claude Code (when HARMFLOW_HARNESS_BIN_DIRS lists it): a worktree whose
 * `.claude/settings.local.json` says `disableAllHooks: true` (the agent can write it, and the next
 * turn or attempt reads it) keeps its gates: the force push to main is refused.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import { type Bench, GIT_IDENTITY, git, makeBench, simulated } from '../execution/fixture.js';
import { REAL_PATH, realCliLab, realHarnessesAvailable, realLink } from './real-harnesses.js';

const MISSING = "HarmFlow's gate configuration is missing: every tool call is refused until the attempt ends.";
/** The removal, from a script: the gates refuse a command line that names $HARMFLOW_GATE_DIR, not what a script does. */
const SCRIPT = { path: 'tidy.sh', content: 'rm -f "$HARMFLOW_GATE_DIR/gates.json"\n' };
const REMOVE = 'sh tidy.sh';
const FORCE_PUSH = 'git push --force origin HEAD:main';

describe('a removed gates file (simulated claude-code, no OS sandbox)', () => {
  let bench: Bench;
  beforeEach(() => {
    bench = makeBench();
  });
  afterEach(async () => {
    await bench.cleanup();
  });

  it('refuses every call after it: the force push to main never runs and origin/main is untouched', async () => {
    const scenario = bench.scenario('remove-gates', {
      steps: [
        { write: { path: 'notes.txt', content: 'notes\n' } },
        { commit: 'Add notes' },
        { write: SCRIPT },
        { run: REMOVE },
        { run: FORCE_PUSH },
        { run: 'ls' },
        { end: 'complete' },
      ],
    });
    const task = bench.task({ harness: simulated('claude-code', scenario), sandbox: 'none', timeout: '2m' });
    const mainBefore = git(bench.origin, 'rev-parse', 'main');
    const result = await bench.run(task);

    expect(git(bench.origin, 'rev-parse', 'main')).toBe(mainBefore);
    const records = await readEvents(bench.home.eventsFile(result.id));
    const decided = records.flatMap((record) =>
      (record.type === 'gate.allowed' || record.type === 'gate.denied') && record.source === 'gate'
        ? [{ type: record.type, data: record.data }]
        : [],
    );
    const commandOf = (toolId: string | undefined) =>
      records.flatMap((record) =>
        record.type === 'tool.call' && record.data.id === toolId ? [record.data.shell ?? record.data.name] : [],
      )[0];
    expect(decided.map((record) => [record.type, commandOf(record.data.toolId)])).toEqual([
      ['gate.allowed', 'Write'],
      ['gate.allowed', "git add -A && git commit -m 'Add notes'"],
      ['gate.allowed', 'Write'],
      ['gate.allowed', REMOVE],
      ['gate.denied', FORCE_PUSH],
      ['gate.denied', 'ls'],
    ]);
    for (const record of decided.slice(4)) {
      expect(record.data).toMatchObject({ gate: 'runner', message: MISSING });
    }
    // The harness read the refusal as the call's result.
    const results = records.filter((record) => record.type === 'tool.result' && record.source === 'harness');
    expect(JSON.stringify(results.slice(-2))).toContain(MISSING);
  }, 60_000);
});

const claude = realHarnessesAvailable(['claude-code']);

describe.skipIf(!claude)('the worktree’s own Claude Code settings (the real claude-code CLI)', () => {
  const lab = realCliLab(claude, () => ({ push: [{ shell: { command: FORCE_PUSH } }, 'Done.'] }));

  it('cannot turn the hooks off: with disableAllHooks in .claude/settings.local.json the force push is refused', async () => {
    const { bench } = lab;
    mkdirSync(join(bench.repo, '.claude'));
    writeFileSync(join(bench.repo, '.claude', 'settings.local.json'), JSON.stringify({ disableAllHooks: true }));
    git(bench.repo, 'add', '-A');
    git(bench.repo, 'commit', '--quiet', '-m', 'Turn hooks off');
    const mainBefore = git(bench.origin, 'rev-parse', 'main');
    const task = bench.task({ harness: realLink(lab.api.url, 'claude-code', 'push'), timeout: '3m' });
    const result = await bench.run(task, { hostEnv: { ...process.env, ...GIT_IDENTITY, PATH: REAL_PATH } });

    expect(git(bench.origin, 'rev-parse', 'main')).toBe(mainBefore);
    const denied = (await readEvents(bench.home.eventsFile(result.id))).filter(
      (record) => record.type === 'gate.denied',
    );
    expect(denied).toMatchObject([{ source: 'gate', harness: 'claude-code', data: { gate: 'commands' } }]);
  }, 180_000);
});
