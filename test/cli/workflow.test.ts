/**
 * `harmflow workflow` through the built CLI on the shipped statements example: the first run crashes
 * at fact-check c-1412; the plan after the fix says ≈$49 and ≈4 h of work plus 4 h of review against
 * $93 and 7.5 h, within the deadline; the resume reuses what it can and waits for a person on the 185
 * statements the fix changed, which the reviewer reads as diffs with their cause; approved, they are
 * sent, each once; a run over its budget is refused and creates nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'harmflow.js');
const FIRST = join(ROOT, 'examples', 'statements', 'first.mjs');
const FIXED = join(ROOT, 'examples', 'statements', 'fixed.mjs');

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'harmflow-workflow-cli-'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'workflow', ...args, '--home', home], {
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, STATEMENTS_OUTBOX: join(home, 'outbox.jsonl') },
  });
}

describe('harmflow workflow', () => {
  it('refuses a run over its budget without --yes, and creates nothing', async () => {
    const refused = cli('run', FIRST, '--max-usd', '10');
    expect(refused.status).toBe(15);
    expect(refused.stderr).toMatch(/the plan is over the budget of \$10: nothing started \(pass --yes/);
    const store = openSqliteResumeStore(join(home, 'harmflow.db'));
    try {
      expect(await store.listRuns()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('runs, crashes at c-1412, plans the fix, resumes', { timeout: 120_000 }, () => {
    const first = cli('run', FIRST);
    expect(first.status).toBe(10);
    expect(first.stdout).toMatch(/crashed at fact-check item c-1412: 529 overloaded \(5 tries\)/);
    const run = /run (\w{26}): crashed/.exec(first.stdout)?.[1] ?? '';
    expect(run).toHaveLength(26);

    const deadline = new Date(Date.now() + 26 * 3_600_000).toISOString();
    const args = ['plan', run, '--file', FIXED, '--invalidate', 'categorise', '--assume-changed', 'totals=200'];
    const plan = cli(...args, '--deadline', deadline);
    expect(plan.status).toBe(14);
    expect(plan.stdout).toMatch(/total +\$48\.86, 8\.1\d h \(4\.1\d h of work \+ 4\.00 h of review\)/);
    expect(plan.stdout).toMatch(
      /full rerun +from categorise: \$93\.00, 11\.5\d h \(7\.5\d h of work \+ 4\.00 h of review\)/,
    );
    expect(plan.stdout).toMatch(/26\.0 h left — fits/);
    const json = JSON.parse(cli(...args, '--deadline', deadline, '--json').stdout) as {
      total: { usd: number; hours: number };
      steps: { step: string; willRun: { items: number } }[];
      deadline: { fits: boolean };
    };
    expect(Math.round(json.total.usd)).toBe(49);
    expect(json.steps.map((step) => [step.step, step.willRun.items])).toEqual([
      ['pull', 0],
      ['categorise', 1200],
      ['totals', 200],
      ['narrative', 200],
      ['fact-check', 730],
      ['review', 2000],
      ['send', 2000],
    ]);
    expect(json.deadline.fits).toBe(true);

    const resumed = cli('resume', run, '--file', FIXED);
    expect(resumed.status).toBe(13);
    expect(resumed.stdout).toMatch(/narrative: 200 computed, 1800 reused/);
    expect(resumed.stdout).toMatch(/fact-check: 730 computed, 1270 reused/);
    expect(resumed.stdout).toMatch(/review: 1815 computed, 0 reused/);
    expect(resumed.stdout).toMatch(/send: 1815 computed, 0 reused, 0 failed, 185 blocked/);
    expect(resumed.stdout).toMatch(/waiting — 185 item\(s\) await review/);

    // The reviewer reads the 185 statements the fix changed, each a diff with the chain that changed it.
    const review = cli('review', run);
    expect(review.status).toBe(0);
    expect(review.stdout).toMatch(/185 item\(s\) wait for review/);
    expect(
      review.stdout.match(
        /— changed in this run\n {2}because: narrative c-\d+ ← totals c-\d+ ← categorise b-\d+: version 1 → 2\n/g,
      ),
    ).toHaveLength(148);
    expect(review.stdout.match(/because: fact-check c-\d+ ← totals/g)).toHaveLength(37);
    expect(review.stdout).toMatch(/\n {2}- {3}"statement": "c-0010's .*\n {2}\+ {3}"statement": "c-0010's /);
    expect(cli('review', run, '--approve-all', '--by', 'ana').stdout).toMatch(/^185 decided by ana; resume the run/);

    const approved = cli('resume', run, '--file', FIXED);
    expect(approved.status).toBe(0);
    expect(approved.stdout).toMatch(/send: 185 computed, 1815 reused/);
    const sent = readFileSync(join(home, 'outbox.jsonl'), 'utf8').trim().split('\n');
    expect(new Set(sent.map((line) => (JSON.parse(line) as { key: string }).key)).size).toBe(2000);
    expect(sent).toHaveLength(2000);
    expect(approved.stdout).toMatch(new RegExp(`run ${run}: succeeded\\n`));
    const status = cli('status', run);
    expect(status.stdout).toMatch(/: succeeded\n/);
    expect(cli('plan', run, '--file', FIXED).status).toBe(0);

    // A person says categorise went wrong although nothing changed: the plan counts it again.
    expect(cli('invalidate', run, 'nowhere', '--file', FIXED, '--reason', 'x').stderr).toMatch(/has no step "nowhere"/);
    const invalidated = cli('invalidate', run, 'categorise', '--file', FIXED, '--reason', 'labels drifted');
    expect(invalidated.status).toBe(0);
    const replan = cli('plan', run, '--file', FIXED);
    expect(replan.status).toBe(14);
    expect(replan.stdout).toMatch(/categorise +model +1200 +0 +1200 .*invalidated 1200/);
    expect(replan.stdout).toMatch(/send +effect +2000 .*2000 sent already/);
  });

  it('says what is wrong with its input in one line', () => {
    const missing = cli('run', join(home, 'nowhere.mjs'));
    expect(missing.status).toBe(3);
    expect(missing.stderr.trim()).toMatch(/^harmflow: no workflow file /);
    expect(cli('run', FIRST, '--param', 'month').stderr).toMatch(/--param "month": write name=value/);
    expect(cli('status', '01jf3kaaaa2m4n6p8r0s2t4v6z').status).toBe(6);
  });
});
