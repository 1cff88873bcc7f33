/**
 * The `harmflow` command line as users run it: the built bin, real processes, a temporary
 * HARMFLOW_HOME. Bad input gets one line and a documented exit code and creates nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

let bench: Bench;
let home: string;
beforeEach(() => {
  bench = makeBench();
  home = join(bench.dir, 'cli-home');
});
afterEach(async () => {
  await bench.cleanup();
});

function harmflow(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HARMFLOW_HOME: home, ...GIT_IDENTITY, ...env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function taskFile(fields: Record<string, unknown>): string {
  const file = join(bench.dir, 'task.yaml');
  writeFileSync(file, stringify({ name: 'cli-task', repo: 'repo', baseRef: 'main', prompt: 'Do it.', ...fields }));
  return file;
}

describe('bad input', () => {
  const cases: [string, () => string, number, RegExp][] = [
    [
      'a malformed task file',
      () => writeRaw('name: x\nprompt: [unclosed\n'),
      EXIT.invalidTask,
      /task\.yaml:\d+: not valid YAML/,
    ],
    [
      'an unknown harness',
      () => taskFile({ harness: 'gpt' }),
      EXIT.invalidTask,
      /harness: unknown harness "gpt" \(known: claude-code, codex, gemini, opencode\)/,
    ],
    [
      'an unknown field',
      () => taskFile({ harness: 'codex', fallback: ['codex'] }),
      EXIT.invalidTask,
      /unknown field "fallback"/,
    ],
    [
      'a missing task file',
      () => join(bench.dir, 'none.yaml'),
      EXIT.invalidTask,
      /^harmflow: cannot read task file .*none\.yaml: no such file \(ENOENT\)\n$/,
    ],
    ['a missing repository', () => simulatedTask({ repo: 'nope' }), EXIT.repository, /repository not found: /],
    ['a missing base ref', () => simulatedTask({ baseRef: 'nope' }), EXIT.repository, /base ref "nope" not found/],
    [
      'a harness CLI not installed',
      () => taskFile({ harness: 'codex' }),
      EXIT.harnessMissing,
      /harness codex is not installed/,
    ],
  ];
  for (const [what, make, code, message] of cases) {
    it(`${what}: one line, exit ${code}, nothing created`, () => {
      const { code: exit, stdout, stderr } = harmflow(['run', make()], { PATH: '/usr/bin:/bin' });
      expect(exit).toBe(code);
      expect(stderr).toMatch(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stdout).toBe('');
      expect(existsSync(home)).toBe(false);
    });
  }

  function simulatedTask(fields: Record<string, unknown>): string {
    const scenario = bench.scenario('claude', { steps: [{ end: 'complete' }] });
    return taskFile({ harness: simulated('claude-code', scenario), ...fields });
  }

  function writeRaw(text: string): string {
    const file = join(bench.dir, 'task.yaml');
    writeFileSync(file, text);
    return file;
  }

  it('an unknown option exits 2', () => {
    expect(harmflow(['ls', '--bogus']).code).toBe(EXIT.usage);
  });

  it('an unknown execution exits 6', () => {
    const { code, stderr } = harmflow(['show', '0123456789']);
    expect(code).toBe(EXIT.notFound);
    expect(stderr).toBe('harmflow: no execution "0123456789" in this HARMFLOW_HOME\n');
  });
});

describe('run and the record commands', () => {
  it('runs a task through a switch, then ls, show, events and context describe it', () => {
    const claude = bench.scenario('claude', {
      steps: [{ write: { path: 'a.txt', content: 'a\n' } }, { commit: 'Add a' }, { end: 'quota' }],
    });
    const codex = bench.scenario('codex', { steps: [{ commit: 'Add a' }, { say: 'done' }, { end: 'complete' }] });
    const file = taskFile({ harness: simulated('claude-code', claude), fallbacks: [simulated('codex', codex)] });

    const run = harmflow(['run', file]);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toMatch(/SWITCH claude-code → codex \(quota_exhausted; switch 1 of 1\)/);
    const id = /execution (\w{26}): succeeded/.exec(run.stdout)?.[1] ?? '';
    expect(id).not.toBe('');

    expect(harmflow(['ls']).stdout).toBe('no live executions (ls --all shows ended ones)\n');
    const listed = JSON.parse(harmflow(['ls', '--all', '--json']).stdout) as { id: string; state: string }[];
    expect(listed.map((row) => [row.id, row.state])).toEqual([[id, 'succeeded']]);

    const show = harmflow(['show', id.slice(0, 10)]);
    expect(show.code).toBe(EXIT.ok);
    expect(show.stdout).toMatch(/attempt 1 {2}claude-code \(simulated\) .*quota_exhausted/);
    expect(show.stdout).toMatch(/attempt 2 {2}codex \(simulated\) .*completed/);

    const events = harmflow(['events', id]).stdout.trim().split('\n');
    expect(events[0]).toMatch(/execution {8}execution\.started/);
    expect(events.some((line) => /SWITCH claude-code → codex/.test(line))).toBe(true);
    expect(events.filter((line) => / #1 claude-code /.test(line)).length).toBeGreaterThan(3);
    const json = harmflow(['events', id, '--json'])
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(json.at(-1)).toMatchObject({ type: 'execution.ended', data: { state: 'succeeded', attempts: 2 } });
    const skipped = harmflow(['events', id, '--json', '--from', String(json.length - 1)])
      .stdout.trim()
      .split('\n');
    expect(skipped).toHaveLength(1);

    const context = JSON.parse(harmflow(['context', id, '--json']).stdout) as { attempts: { outcome: string }[] };
    expect(context.attempts.map((a) => a.outcome)).toEqual(['quota_exhausted', 'completed']);
    expect(harmflow(['context', id]).stdout).toMatch(/^ +commit [0-9a-f]{7} "Add a"$/m);
  });

  it('exits with the execution state: a failed execution exits 10', () => {
    const claude = bench.scenario('claude', { steps: [{ end: 'overloaded' }] });
    const run = harmflow(['run', taskFile({ harness: simulated('claude-code', claude) })]);
    expect(run.code).toBe(EXIT.executionFailed);
    expect(run.stdout).toMatch(/: failed\n/);
  });
});
