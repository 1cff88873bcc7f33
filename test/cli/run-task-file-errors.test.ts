/**
 * `harmflow run` and `harmflow submit` given a task file with several problems (issue 25): every
 * problem on stderr at once, one `harmflow: <file>: <place>: <problem>` line each, exit 3, nothing on
 * stdout and nothing created (not even the state directory). The built bin; needs dist/ built.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/core/errors.js';
import { spawnHarmflow } from './spawn-harmflow.js';

const root = mkdtempSync(join(tmpdir(), 'harmflow-run-task-errors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TASK = join(root, 'task.yaml');
writeFileSync(
  TASK,
  [
    'name: dates',
    'prompt: Fix it.',
    'harness: claude-code',
    'fallbacks: [codex, cluade]',
    'timeout: 5 minutes',
    'retries: 2',
  ].join('\n'),
);

const EXPECTED = [
  `harmflow: ${TASK}: fallbacks[1]: unknown harness "cluade" (known: claude-code, codex, gemini, opencode)`,
  `harmflow: ${TASK}: timeout: not a duration (examples: 45m, 1h30m, 90s, 600)`,
  `harmflow: ${TASK}: unknown field "retries"`,
];

describe.each(['run', 'submit'])('harmflow %s of a task file with three problems', (verb) => {
  it('prints the three, one line each, exits 3 and creates nothing', async () => {
    const home = join(root, `home-${verb}`);
    const ran = await spawnHarmflow([verb, TASK], {
      env: { PATH: process.env.PATH, HOME: root, HARMFLOW_HOME: home },
    });
    expect(ran.stderr.split('\n').filter(Boolean)).toStrictEqual(EXPECTED);
    expect(ran.stdout).toBe('');
    expect(ran.code).toBe(EXIT.invalidTask);
    expect(existsSync(home)).toBe(false);
  });
});
