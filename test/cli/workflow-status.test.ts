/**
 * `harmflow workflow status` tells the truth about a run's process (issue 21 item 7): the built CLI
 * runs test/workflows/held-workflow.mjs, whose one item waits for a file the test makes. While the
 * `harmflow workflow run` process lives, the run is `running`, driven by that pid on this machine,
 * and a second `resume` is refused; once the process is killed (SIGKILL: nothing of it runs after), the run is `interrupted`, names the
 * dead owner and says how to resume it, in text and in JSON; the command it gives resumes it.
 * Needs dist/ built (`npx tsc -p tsconfig.build.json`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import { spawnHarmflow } from './spawn-harmflow.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const HELD = fileURLToPath(new URL('../workflows/held-workflow.mjs', import.meta.url));

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'harmflow-workflow-status-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Polls `check` every 20 ms until it holds (bounded by the test's timeout). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The one run in the home's store. */
async function onlyRun(): Promise<string> {
  const store = openSqliteResumeStore(join(home, 'harmflow.db'));
  try {
    const runs = await store.listRuns();
    expect(runs).toHaveLength(1);
    return runs[0]?.id ?? '';
  } finally {
    await store.close();
  }
}

interface StatusJson {
  readonly run: {
    readonly state: string;
    readonly owner?: { readonly pid: number; readonly host: string; readonly since: string; readonly alive: boolean };
  };
  readonly resume?: string;
}

async function status(id: string): Promise<{ text: string; json: StatusJson }> {
  const env = process.env;
  const text = await spawnHarmflow(['workflow', 'status', id, '--home', home], { env });
  expect(text.stderr).toBe('');
  const json = await spawnHarmflow(['workflow', 'status', id, '--home', home, '--json'], { env });
  return { text: text.stdout, json: JSON.parse(json.stdout) as StatusJson };
}

describe('harmflow workflow status', () => {
  it('shows a run whose process was killed as interrupted, naming its owner and the resume command', {
    timeout: 60_000,
  }, async () => {
    const release = join(home, 'release');
    const child = spawn(
      process.execPath,
      [BIN, 'workflow', 'run', HELD, '--param', `release=${release}`, '--home', home],
      {
        stdio: 'ignore',
      },
    );
    const exited = once(child, 'exit');
    await until(() => existsSync(`${release}.started`));
    const id = await onlyRun();
    const pid = child.pid ?? 0;

    const live = await status(id);
    expect(live.text).toMatch(new RegExp(`^run ${id} of held: running — driven by pid ${pid} on ${hostname()} since `));
    expect(live.json.run.state).toBe('running');
    expect(live.json.run.owner).toMatchObject({ pid, host: hostname(), alive: true });
    expect(live.json.resume).toBeUndefined();
    // A second driver is refused while the first lives, before anything is planned.
    const twice = await spawnHarmflow(['workflow', 'resume', id, '--home', home], { env: process.env });
    expect(twice.code).toBe(7);
    expect(twice.stdout).toBe('');
    expect(twice.stderr).toContain(`run ${id} is being driven by pid ${pid} on ${hostname()}`);

    child.kill('SIGKILL');
    await exited;
    const resume = `harmflow workflow resume ${id} --home ${home}`;
    const killed = await status(id);
    expect(killed.text).toMatch(
      new RegExp(
        `^run ${id} of held: interrupted — the process driving it is gone: pid ${pid} on ${hostname()} since `,
      ),
    );
    expect(killed.text).toContain(`\nresume it: ${resume}\n`);
    expect(killed.json.run.state).toBe('interrupted');
    expect(killed.json.run.owner).toMatchObject({ pid, host: hostname(), alive: false });
    expect(killed.json.resume).toBe(resume);

    writeFileSync(release, '');
    const resumed = await spawnHarmflow(resume.split(' ').slice(1), { env: process.env });
    expect(resumed.stdout).toMatch(new RegExp(`run ${id}: succeeded`));
    expect(resumed.code).toBe(0);
    const after = await status(id);
    expect(after.text).toMatch(new RegExp(`^run ${id} of held: succeeded\n`));
    expect(after.json.run.state).toBe('succeeded');
    expect(after.json.run.owner).toBeUndefined();
  });
});
