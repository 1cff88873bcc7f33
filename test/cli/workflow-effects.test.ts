/**
 * `harmflow workflow effects`: a run's effects from the real SQLite ledger in a temporary
 * HARMFLOW_HOME — done, failed, claimed by a live holder, and unknown (claimed by a ledger that closed
 * before settling it) — listed and filtered; a person settles the unknown one; a done one and a live
 * claim are refused (exit 7); an unknown run or key is exit 6.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatEffects, listRunEffects, resolveRunEffect } from '../../src/cli/workflow-effects.js';
import { newExecutionId } from '../../src/core/ids.js';
import type { EffectClaim, EffectLedger, EffectRecord } from '../../src/store/effect-ledger.js';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const AT = '2026-11-01T09:00:00.000Z';
const RUN = newExecutionId();
const OTHER_RUN = newExecutionId();

let home: string;
let store: ResumeStore;
/** Open for the whole file: its claim of `k-live` is being performed, as far as anyone can tell. */
let ledger: EffectLedger;

function claimOf(key: string, run = RUN): EffectClaim {
  return { key, workflow: 'statements', run, step: 'send', item: key.replace(/^statement:/, ''), at: AT };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'harmflow-effects-cli-'));
  const database = join(home, 'harmflow.db');
  store = openSqliteResumeStore(database);
  await store.createRun({
    id: RUN,
    workflow: 'statements',
    params: { month: '2026-10' },
    state: 'crashed',
    createdAt: AT,
    updatedAt: AT,
  });
  ledger = openSqliteEffectLedger(database);
  await ledger.claim(claimOf('statement:c-1'));
  await ledger.settle('statement:c-1', { state: 'done', result: { messageId: 'm-1' } }, AT);
  await ledger.claim(claimOf('statement:c-2'));
  await ledger.settle('statement:c-2', { state: 'failed', error: '422 invalid address' }, AT);
  await ledger.claim(claimOf('statement:c-3'));
  await ledger.claim(claimOf('statement:c-9', OTHER_RUN));
  // A holder that ends before settling its claim: a crashed process, as everyone else sees it.
  const gone = openSqliteEffectLedger(database);
  await gone.claim(claimOf('statement:c-4'));
  await gone.close();
});
afterAll(async () => {
  await ledger.close();
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'workflow', 'effects', ...args, '--home', home], {
    encoding: 'utf8',
    timeout: 30_000,
  });
}

const states = (records: readonly EffectRecord[]) => records.map((record) => [record.key, record.state]);

describe('workflow effects', () => {
  it("lists a run's effects from the ledger, and those in one state", async () => {
    expect(states(await listRunEffects(ledger, store, RUN))).toEqual([
      ['statement:c-1', 'done'],
      ['statement:c-2', 'failed'],
      ['statement:c-3', 'claimed'],
      ['statement:c-4', 'unknown'],
    ]);
    expect(states(await listRunEffects(ledger, store, RUN, 'unknown'))).toEqual([['statement:c-4', 'unknown']]);
    // A run only the ledger names is known too; one nobody names is not.
    expect(states(await listRunEffects(ledger, store, OTHER_RUN, 'done'))).toEqual([]);
    await expect(listRunEffects(ledger, store, newExecutionId())).rejects.toThrow(/no workflow run/);

    const listed = cli(RUN);
    expect(listed.status).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toBe(`run ${RUN}: 4 effects (1 claimed, 1 unknown, 1 done, 1 failed)`);
    expect(lines[1]).toMatch(/^key +state +step +item +claims +settled by +result \/ error \/ reason$/);
    expect(lines[2]).toMatch(/^statement:c-1 +done +send +c-1 +1 +- +\{"messageId":"m-1"\}$/);
    expect(lines[3]).toMatch(/^statement:c-2 +failed +send +c-2 +1 +- +422 invalid address$/);
    // This test's ledger still holds c-3: the CLI, another process, sees a live claim.
    expect(lines[4]).toMatch(
      new RegExp(`^statement:c-3 +claimed +send +c-3 +1 +- +being performed by holder ${ledger.holder}$`),
    );
    expect(lines[5]).toMatch(/^statement:c-4 +unknown +send +c-4 +1 +- +claimed by holder \w+, which ended before/);
    expect(listed.stdout).toContain(`harmflow workflow effects ${RUN} --resolve KEY --done|--failed --note TEXT`);

    const unknown = cli(RUN, '--state', 'unknown', '--json');
    expect(unknown.status).toBe(0);
    expect(states(JSON.parse(unknown.stdout) as EffectRecord[])).toEqual([['statement:c-4', 'unknown']]);
    expect(cli(RUN, '--state', 'claimed', '--json').stdout).toContain('"key": "statement:c-3"');
    expect(formatEffects(OTHER_RUN, [])).toBe(`run ${OTHER_RUN}: no effects`);
  });

  it('lets a person settle an unknown effect, recording who and why', async () => {
    const resolved = cli(RUN, '--resolve', 'statement:c-4', '--done', '--note', 'found m-4 in the mail provider log');
    expect(resolved.stderr).toBe('');
    expect(resolved.status).toBe(0);
    expect(resolved.stdout).toBe('effect statement:c-4: done, settled by person: found m-4 in the mail provider log\n');
    expect(await ledger.get('statement:c-4')).toMatchObject({
      state: 'done',
      result: { note: 'found m-4 in the mail provider log' },
      settledBy: 'person: found m-4 in the mail provider log',
      claims: 1,
    });

    // A failed one that did not happen after all can be recorded as such, through the function too.
    const failed = await resolveRunEffect(ledger, RUN, 'statement:c-2', 'failed', 'address fixed, resend', AT);
    expect(failed).toMatchObject({
      state: 'failed',
      error: 'address fixed, resend',
      settledBy: 'person: address fixed, resend',
    });
  });

  it('refuses a done effect and a live claim (exit 7), and an unknown run or key (exit 6)', async () => {
    const done = cli(RUN, '--resolve', 'statement:c-1', '--failed', '--note', 'never arrived');
    expect(done.status).toBe(7);
    expect(done.stderr).toBe('harmflow: effect statement:c-1 is done already\n');
    expect(await ledger.get('statement:c-1')).toMatchObject({ state: 'done', result: { messageId: 'm-1' } });

    const live = cli(RUN, '--resolve', 'statement:c-3', '--done', '--note', 'looks sent');
    expect(live.status).toBe(7);
    expect(live.stderr).toBe(`harmflow: effect statement:c-3 is being performed by holder ${ledger.holder}\n`);

    expect(cli(RUN, '--resolve', 'statement:c-404', '--done', '--note', 'x').status).toBe(6);
    const elsewhere = cli(RUN, '--resolve', 'statement:c-9', '--done', '--note', 'x');
    expect(elsewhere.status).toBe(6);
    expect(elsewhere.stderr).toBe(
      `harmflow: effect statement:c-9 is not of run ${RUN}: its latest claim is in run ${OTHER_RUN}\n`,
    );
    expect(cli(newExecutionId()).status).toBe(6);
  });

  it('says what is wrong with its options (exit 2)', () => {
    const cases: [string[], RegExp][] = [
      [['--state', 'sent'], /--state "sent": one of claimed, unknown, done, failed/],
      [['--resolve', 'statement:c-2', '--note', 'x'], /needs one of --done and --failed/],
      [['--resolve', 'statement:c-2', '--done', '--failed', '--note', 'x'], /needs one of --done and --failed/],
      [['--resolve', 'statement:c-2', '--done'], /needs --note TEXT/],
      [['--done', '--note', 'x'], /--done, --failed and --note go with --resolve KEY/],
      [['--resolve', 'statement:c-2', '--done', '--note', 'x', '--state', 'done'], /--state lists effects/],
    ];
    for (const [args, message] of cases) {
      const result = cli(RUN, ...args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});
