/**
 * `harmflow workflow ls` lists a store's runs newest first, each with the state as it is now: a
 * `running` run whose process is gone shows `interrupted`, a waiting run says what it waits for; in
 * text and in JSON, and for one workflow with `--workflow`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/store/resume-store.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import { spawnHarmflow } from './spawn-harmflow.js';

let home: string;
const WAITING = '185 item(s) await review: `harmflow workflow review 01waiting`, then resume';

function run(id: string, workflow: string, minute: number, rest: Partial<RunRecord>): RunRecord {
  const at = `2026-12-02T10:${String(minute).padStart(2, '0')}:00.000Z`;
  return { id, workflow, params: {}, state: 'succeeded', createdAt: at, updatedAt: at, ...rest };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'harmflow-workflow-ls-'));
  const store = openSqliteResumeStore(join(home, 'harmflow.db'));
  try {
    await store.createRun(run('01succeeded', 'statements', 1, {}));
    await store.createRun(run('01waiting', 'statements', 2, { state: 'waiting', message: WAITING }));
    // Driven by this process as it was when it started at another time: that process is gone.
    const owner = { pid: process.pid, host: hostname(), startTime: '1', since: '2026-12-02T10:03:00.000Z' };
    await store.createRun(run('01interrupted', 'invoices', 3, { state: 'running', owner }));
    // What they spent: 01succeeded over two drives at $3 / $15 a million tokens (100k in and 20k out
    // in each: $0.60 + $0.60, and $0.05 of a second model); 01waiting's model had no price (unknown);
    // 01interrupted recorded nothing (a run of an older HarmFlow: unknown).
    const price = { inputPerMTok: 3, outputPerMTok: 15 };
    for (const drive of [1, 2]) {
      await store.startDrive(
        '01succeeded',
        [
          { step: 'label', kind: 'model', model: 'm1', price },
          { step: 'count', kind: 'code' },
        ],
        run('', '', drive, {}).createdAt,
      );
      await store.commitItems(
        [],
        [
          {
            run: '01succeeded',
            drive,
            step: 'label',
            items: 1,
            tries: 1,
            itemMs: 900,
            inputTokens: 100_000,
            outputTokens: 20_000,
          },
          { run: '01succeeded', drive, step: 'count', items: 1, tries: 1, itemMs: 2 },
        ],
      );
    }
    await store.startDrive(
      '01succeeded',
      [{ step: 'check', kind: 'model', model: 'm2', price: { inputPerMTok: 1, outputPerMTok: 1 } }],
      run('', '', 9, {}).createdAt,
    );
    await store.commitItems(
      [],
      [{ run: '01succeeded', drive: 3, step: 'check', items: 1, tries: 1, inputTokens: 25_000, outputTokens: 25_000 }],
    );
    await store.startDrive('01waiting', [{ step: 'label', kind: 'model', model: 'm1' }], run('', '', 2, {}).createdAt);
    await store.commitItems(
      [],
      [{ run: '01waiting', drive: 1, step: 'label', items: 1, tries: 1, inputTokens: 10, outputTokens: 1 }],
    );
  } finally {
    await store.close();
  }
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

const ls = (...args: string[]) => spawnHarmflow(['workflow', 'ls', '--home', home, ...args], { env: process.env });

describe('harmflow workflow ls', () => {
  it('lists the runs newest first, with the state as it is now and what each waits for', async () => {
    const { stdout, stderr } = await ls();
    expect(stderr).toBe('');
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN +STATE +WORKFLOW +STARTED +UPDATED +SPENT +WHY \/ WAITING FOR$/);
    expect(lines.slice(1).map((line) => line.split(/ {2,}/).slice(0, 6))).toEqual([
      ['01interrupted', 'interrupted', 'invoices', '2026-12-02 10:03Z', '2026-12-02 10:03Z', '?'],
      ['01waiting', 'waiting', 'statements', '2026-12-02 10:02Z', '2026-12-02 10:02Z', '?'],
      ['01succeeded', 'succeeded', 'statements', '2026-12-02 10:01Z', '2026-12-02 10:01Z', '$1.25'],
    ]);
    expect(lines[2]).toContain(WAITING);
  });

  it("prints JSON with the shown state and each run's total spend, and keeps one workflow with --workflow", async () => {
    const json = JSON.parse((await ls('--json')).stdout) as {
      runs: {
        id: string;
        state: string;
        spend: { spent: { usd: number | null; tries: number }; known: { usd: number }; unknown: string[] };
      }[];
    };
    expect(json.runs.map((each) => [each.id, each.state, each.spend.spent.usd, each.spend.spent.tries])).toEqual([
      ['01interrupted', 'interrupted', null, 0],
      ['01waiting', 'waiting', null, 1],
      ['01succeeded', 'succeeded', expect.closeTo(1.25, 9), 5],
    ]);
    expect(json.runs.map((each) => each.spend.unknown)).toEqual([
      ['no spend recorded: the run is from a HarmFlow that did not record it'],
      ['no price for model m1 (drive 1)'],
      [],
    ]);
    const one = JSON.parse((await ls('--workflow', 'statements', '--json')).stdout) as { runs: { id: string }[] };
    expect(one.runs.map((each) => each.id)).toEqual(['01waiting', '01succeeded']);
  });

  it('says how to start one when there is none', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'harmflow-workflow-ls-empty-'));
    try {
      const { stdout } = await spawnHarmflow(['workflow', 'ls', '--home', empty], { env: process.env });
      expect(stdout.trim()).toBe('no workflow runs yet: `harmflow workflow run FILE` starts one');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
