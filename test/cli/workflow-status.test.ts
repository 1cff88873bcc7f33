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

const SPEND = fileURLToPath(new URL('./spend-workflow.mjs', import.meta.url));

interface SpendJson {
  readonly spend: {
    readonly drives: number;
    readonly steps: readonly {
      readonly step: string;
      readonly spent: {
        readonly items: number;
        readonly failed: number;
        readonly tries: number;
        readonly usd: number | null;
      };
      readonly known: { readonly inputTokens: number; readonly outputTokens: number; readonly usd: number };
      readonly unknown: readonly string[];
      readonly planned: {
        readonly latest: { readonly usd: number } | null;
        readonly total: { readonly usd: number } | null;
      };
    }[];
    readonly total: { readonly spent: { readonly usd: number | null; readonly tries: number } };
  };
}

describe('harmflow workflow status: spend', () => {
  it('shows what each step spent over the drives beside the plans, and why a figure is unknown', {
    timeout: 60_000,
  }, async () => {
    const env = process.env;
    const broken = join(home, 'broken');
    writeFileSync(broken, '');
    const first = await spawnHarmflow(
      ['workflow', 'run', SPEND, '--param', `broken=${broken}`, '--home', home, '--quiet'],
      { env },
    );
    expect(first.code).toBe(10);
    const id = await onlyRun();

    // c-1's answer was not JSON (its tokens count), c-2 was overloaded once before it answered (that
    // try reported no tokens: the tokens and dollars are unknown, what was reported a floor), c-3
    // answered: 3 answers at $0.60.
    const failed = await spawnHarmflow(['workflow', 'status', id, '--home', home], { env });
    const rows = (text: string) =>
      text
        .split('\n')
        .filter((line) => /^(STEP|label|count|TOTAL) /.test(line))
        .map((line) => line.split(/ {2,}/));
    expect(rows(failed.stdout)).toEqual([
      [
        'STEP',
        'DONE',
        'REUSED',
        'FAILED',
        'COMPUTED',
        'TRIES',
        'TOKENS IN / OUT',
        'SPENT',
        'PLANNED',
        'HOURS',
        'PLANNED H',
      ],
      ['label', '2', '0', '1', '3', '4', '≥ 300k / ≥ 60k', '≥ $1.80', '$1.80', '0.00 h', '0.10 h'],
      ['count', '0', '0', '0', '0', '0', '-', '$0.00', '$0.00', '0.00 h', '0.00 h'],
      ['TOTAL', '2', '0', '1', '3', '4', '≥ 300k / ≥ 60k', '≥ $1.80', '$1.80', '0.00 h', '0.10 h'],
    ]);
    expect(failed.stdout).toContain(
      '\n? label: 1 try of a model reported no tokens (reported: $1.80, 300k / 60k tokens)\n',
    );

    // The fix: c-1 answers; the resume computes it alone, planned at the price its answers measured.
    rmSync(broken);
    const resumed = await spawnHarmflow(['workflow', 'resume', id, '--home', home, '--quiet'], { env });
    expect(resumed.code).toBe(0);
    const after = await spawnHarmflow(['workflow', 'status', id, '--home', home], { env });
    expect(rows(after.stdout)).toEqual([
      [
        'STEP',
        'DONE',
        'REUSED',
        'FAILED',
        'COMPUTED',
        'TRIES',
        'TOKENS IN / OUT',
        'SPENT',
        'PLANNED (LAST / ALL)',
        'HOURS',
        'PLANNED H (LAST / ALL)',
      ],
      ['label', '3', '0', '0', '4', '5', '≥ 400k / ≥ 80k', '≥ $2.40', '$0.60 / $2.40', '0.00 h', '0.00 h / 0.10 h'],
      ['count', '1', '0', '0', '1', '1', '-', '$0.00', '$0.00 / $0.00', '0.00 h', '0.00 h / 0.00 h'],
      ['TOTAL', '4', '0', '0', '5', '6', '≥ 400k / ≥ 80k', '≥ $2.40', '$0.60 / $2.40', '0.00 h', '0.00 h / 0.10 h'],
    ]);
    expect(after.stdout).toContain('spent in 2 drives (the start and 1 resume)');
    expect(after.stdout).toContain(
      '\n? label: 1 try of a model reported no tokens (reported: $2.40, 400k / 80k tokens)\n',
    );

    const json = JSON.parse(
      (await spawnHarmflow(['workflow', 'status', id, '--home', home, '--json'], { env })).stdout,
    ) as SpendJson;
    expect(json.spend.drives).toBe(2);
    const [label] = json.spend.steps;
    expect(label?.step).toBe('label');
    expect(label?.spent).toMatchObject({ items: 4, failed: 1, tries: 5, usd: null });
    expect(label?.known).toMatchObject({ inputTokens: 400_000, outputTokens: 80_000 });
    expect(label?.known.usd).toBeCloseTo(2.4, 9);
    expect(label?.unknown).toEqual(['1 try of a model reported no tokens']);
    expect(label?.planned.latest?.usd).toBeCloseTo(0.6, 9);
    expect(label?.planned.total?.usd).toBeCloseTo(2.4, 9);
    expect(json.spend.total.spent).toMatchObject({ usd: null, tries: 6 });
  });
});
