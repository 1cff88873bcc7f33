import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadScenario, parseScenario, ScenarioError, stepsFor } from '../../../src/simulators/sim/scenario.js';
import { ROOT } from '../helpers.js';

const parse = (data: unknown) => parseScenario(data, 'test.yaml');

describe('parseScenario', () => {
  test('turns each step into a tagged step, with defaults', () => {
    const scenario = parse({
      pace: '20ms',
      model: 'gpt-5.5',
      steps: [
        { plan: [{ text: 'A', status: 'in_progress' }] },
        { run: 'npm test' },
        { run: { command: 'npm run lint', description: 'Lint' } },
        { push: null },
        { push: { remote: 'upstream' } },
        { pr: { title: 'T' } },
        { end: { quota: { kind: 'usage_limit', resetsIn: '90s' } } },
      ],
    });
    expect(scenario.paceMs).toBe(20);
    expect(scenario.model).toBe('gpt-5.5');
    expect(scenario.steps).toEqual([
      { kind: 'plan', items: [{ text: 'A', status: 'in_progress' }] },
      { kind: 'run', command: 'npm test' },
      { kind: 'run', command: 'npm run lint', description: 'Lint' },
      { kind: 'push', remote: 'origin' },
      { kind: 'push', remote: 'upstream' },
      { kind: 'pr', title: 'T', body: '' },
      { kind: 'end', ending: { kind: 'quota', variant: 'usage_limit', resetsInMs: 90_000 } },
    ]);
  });

  test("turns: a prompt containing `when` plays that turn's steps, any other prompt the main steps", () => {
    const scenario = parse({
      steps: [{ say: 'main' }],
      turns: [
        { when: 'CHANGELOG', steps: [{ write: { path: 'CHANGELOG.md', content: 'x' } }, { commit: 'Changelog' }] },
        { when: 'tests', steps: [{ run: 'npm test' }] },
      ],
    });
    expect(stepsFor(scenario, 'Please add a CHANGELOG entry')).toEqual([
      { kind: 'write', path: 'CHANGELOG.md', content: 'x' },
      { kind: 'commit', message: 'Changelog' },
    ]);
    expect(stepsFor(scenario, 'run the tests again')).toEqual([{ kind: 'run', command: 'npm test' }]);
    expect(stepsFor(scenario, 'the task')).toEqual([{ kind: 'say', text: 'main' }]);
    expect(() => parse({ steps: [{ say: 'x' }], turns: [{ when: '', steps: [{ say: 'y' }] }] })).toThrow(
      /turns\.0\.when/,
    );
  });

  test('endings by name or object', () => {
    const endings = ['complete', 'crash', 'hang', { hang: { ignoreInterrupt: true } }, { complete: { message: 'ok' } }];
    expect(
      parse({ steps: endings.map((end) => ({ end })) }).steps.map((step) => step.kind === 'end' && step.ending),
    ).toEqual([
      { kind: 'complete' },
      { kind: 'crash' },
      { kind: 'hang', ignoreInterrupt: false, child: false },
      { kind: 'hang', ignoreInterrupt: true, child: false },
      { kind: 'complete', message: 'ok' },
    ]);
  });

  test('errors name each problem and its place, on one line', () => {
    let error: unknown;
    try {
      parse({ pace: 'soon', steps: [{ say: 'a', run: 'b' }, { writ: {} }, { end: { quota: 'monthly' } }] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain('pace: not a duration');
    expect(message).toContain('steps.0: a step has exactly one of: plan, say');
    expect(message).toContain('steps.1: Unrecognized key: "writ"');
    expect(message).toContain('steps.2.end.quota: Invalid option');
  });

  test('paths must stay inside the worktree', () => {
    expect(() => parse({ steps: [{ write: { path: '/etc/passwd', content: '' } }] })).toThrow(/steps\.0\.write\.path/);
    expect(() => parse({ steps: [{ edit: { path: 'a/../../b', find: 'x', replace: 'y' } }] })).toThrow(
      /inside the worktree/,
    );
  });
});

describe('loadScenario', () => {
  test('every example scenario loads', async () => {
    const dir = join(ROOT, 'examples', 'scenarios');
    const files = (await readdir(dir)).filter((file) => file.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) await expect(loadScenario(join(dir, file))).resolves.toHaveProperty('steps');
  });

  test('JSON by its extension; a missing file, bad YAML or bad JSON is a ScenarioError', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'harmflow-scenario-'));
    try {
      await writeFile(join(dir, 'ok.json'), JSON.stringify({ steps: [{ say: 'hi' }] }));
      await expect(loadScenario(join(dir, 'ok.json'))).resolves.toEqual({
        paceMs: 0,
        steps: [{ kind: 'say', text: 'hi' }],
        turns: [],
      });
      await writeFile(join(dir, 'bad.yaml'), 'steps: [');
      await expect(loadScenario(join(dir, 'bad.yaml'))).rejects.toThrow(/is not valid YAML/);
      await writeFile(join(dir, 'bad.json'), 'steps: []');
      await expect(loadScenario(join(dir, 'bad.json'))).rejects.toThrow(/is not valid JSON/);
      await expect(loadScenario(join(dir, 'none.yaml'))).rejects.toThrow(/cannot read scenario .*ENOENT/);
      await expect(loadScenario(join(ROOT, 'package.json'))).rejects.toThrow(ScenarioError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
