/**
 * Lays out the demo on disk: a temporary folder holding a small real project (a date library with a
 * test suite) as a git repository on `main`, a bare `origin` it is pushed to, a forge folder for
 * the fake `gh`, and two task files, all harnesses played by the simulator: act 1's, whose chain is
 * claude-code → codex, and act 2's (the session service), claude-code alone.
 * Everything lives under one folder the caller may delete.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { inheritedEnv, runCommand } from '../proc/run.js';

/** The demo's source files in this package (project, scenarios). */
export const DEMO_SOURCE = fileURLToPath(new URL('../../examples/demo', import.meta.url));

export const DEMO_PROMPT =
  'Make `parseDate` in src/date.js accept ISO week dates (YYYY-Www-D); add tests; open a pull request.';

/** Act 2's task: small, so its turns are about the service, not the work. */
export const SERVICE_PROMPT =
  'Add `formatDate(date)` in src/format.js, the inverse of parseDate (YYYY-MM-DD), with a test; run the tests.';

export interface DemoLayout {
  readonly root: string;
  readonly project: string;
  readonly origin: string;
  readonly forgeDir: string;
  readonly home: string;
  /** Act 1: the quota switch. */
  readonly taskFile: string;
  /** Act 2: the session service. */
  readonly serviceTaskFile: string;
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'HarmFlow Demo',
  GIT_AUTHOR_EMAIL: 'demo@harmflow.invalid',
  GIT_COMMITTER_NAME: 'HarmFlow Demo',
  GIT_COMMITTER_EMAIL: 'demo@harmflow.invalid',
};

/** Creates the demo folder under `parent` (default: the system temp folder). */
export async function setUpDemo(parent: string = tmpdir()): Promise<DemoLayout> {
  const root = mkdtempSync(join(parent, 'harmflow-demo-'));
  const project = join(root, 'project');
  const origin = join(root, 'origin.git');
  const forgeDir = join(root, 'forge');
  const home = join(root, 'home');
  cpSync(join(DEMO_SOURCE, 'project'), project, { recursive: true });
  mkdirSync(forgeDir);
  const env = { ...inheritedEnv(), ...GIT_IDENTITY };
  await git(root, env, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  await git(project, env, 'init', '--quiet', '--initial-branch=main');
  await git(project, env, 'add', '-A');
  await git(project, env, 'commit', '--quiet', '-m', 'tiny-dates: parseDate for calendar dates');
  await git(project, env, 'remote', 'add', 'origin', origin);
  await git(project, env, 'push', '--quiet', '-u', 'origin', 'main');

  const simulated = (harness: string, model: string, scenario = harness) => ({
    harness,
    model,
    simulate: join(DEMO_SOURCE, `${scenario}.scenario.yaml`),
    passEnv: ['HARMFLOW_FORGE_DIR', ...Object.keys(GIT_IDENTITY)],
  });
  const taskFile = join(root, 'task.yaml');
  writeFileSync(
    taskFile,
    stringify({
      name: 'iso-week-dates',
      repo: './project',
      baseRef: 'main',
      prompt: DEMO_PROMPT,
      harness: simulated('claude-code', 'claude-sonnet-4-5'),
      fallbacks: [simulated('codex', 'gpt-5.5')],
      maxSwitches: 1,
      timeout: '5m',
    }),
  );
  const serviceTaskFile = join(root, 'service-task.yaml');
  writeFileSync(
    serviceTaskFile,
    stringify({
      name: 'format-dates',
      repo: './project',
      baseRef: 'main',
      prompt: SERVICE_PROMPT,
      harness: simulated('claude-code', 'claude-sonnet-4-5', 'service'),
      timeout: '5m',
    }),
  );
  return { root, project, origin, forgeDir, home, taskFile, serviceTaskFile };
}

/** The git identity and forge folder the demo's simulated harnesses are given. */
export function demoEnv(layout: DemoLayout): Record<string, string> {
  return { ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: layout.forgeDir };
}

async function git(cwd: string, env: Record<string, string>, ...args: string[]): Promise<string> {
  const result = await runCommand('git', args, { cwd, env, timeoutMs: 30_000 });
  if (result.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim().split('\n')[0]}`);
  return result.stdout;
}
