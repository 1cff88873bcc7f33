/**
 * Lays out the demo on disk: a temporary folder holding a small real project (a date library with a
 * test suite) as a git repository on `main`, a bare `origin` it is pushed to, a forge folder for
 * the fake `gh`, and the task file whose chain is claude-code → codex, both played by the simulator.
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

export interface DemoLayout {
  readonly root: string;
  readonly project: string;
  readonly origin: string;
  readonly forgeDir: string;
  readonly home: string;
  readonly taskFile: string;
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

  const simulated = (harness: string, model: string) => ({
    harness,
    model,
    simulate: join(DEMO_SOURCE, `${harness}.scenario.yaml`),
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
  return { root, project, origin, forgeDir, home, taskFile };
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
