/**
 * The effects crash test (issue 5): a workflow run's effect step — effect-worker.mjs, a child process
 * running the real engine from the built dist/ — is killed with SIGKILL at random points 200 times in
 * a row and resumed each time over the same database (resume store and ledger) and outbox, then let
 * finish. Its fake provider appends each key to an
 * outbox file and does not dedupe, so only the ledger keeps a key from being sent twice; its reconcile
 * function reads the outbox. Afterwards every key is in the outbox exactly once (none twice, none
 * lost) and every ledger entry is done.
 *
 * Each life waits for the worker's `ready`, then for a random number of its progress lines, then a
 * random fraction of a few milliseconds, and kills it: the points fall before a claim, between a claim
 * and its send, between a send and its record, and after. The randomness comes from a seeded
 * generator; the seed is in the test's name. Run `npm run build` first: the worker imports dist/.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import { seededRandom } from '../seeded-random.js';

const KILLS = 200;
/**
 * 1,000 items: a life does a few items before its kill (about 5 here), so 200 lives need several
 * hundred items to still be inside the effect step at the 200th kill; the last life sends the rest.
 */
const ITEMS = 1000;
const CONCURRENCY = 4;
/** Up to 8 progress lines (4 items started or ended) after `ready` before the kill. */
const MAX_LINES_BEFORE_KILL = 8;
/** Then up to 3 ms more: an effect takes 2 ms, so the kill falls anywhere inside one. */
const MAX_EXTRA_MS = 3;
const SEED = 20_261_103;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = fileURLToPath(new URL('./effect-worker.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'harmflow-effects-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One life of the worker: its lines so far, and a way to wait for more of them. */
interface Life {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<unknown>;
  /** Resolves once `count` lines after `ready` have come, or the worker has exited. */
  progress(count: number): Promise<void>;
}

async function startLife(ledger: string, outbox: string): Promise<Life> {
  const child = spawn(process.execPath, [WORKER, ledger, outbox, String(ITEMS), String(CONCURRENCY)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  const lines: string[] = [];
  let errors = '';
  let partial = '';
  let wake = () => {};
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    wake();
  });
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const waitFor = async (done: () => boolean): Promise<void> => {
    while (!done() && !ended()) {
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), exited]);
    }
  };
  await waitFor(() => lines.includes('ready'));
  if (!lines.includes('ready')) throw new Error(`the worker exited before it was ready: ${errors}`);
  return { child, lines, exited, progress: (count) => waitFor(() => lines.length > count) };
}

describe('effects under SIGKILL', () => {
  it(`sends every statement exactly once across ${KILLS} kills at random points (seed ${SEED})`, {
    timeout: 180_000,
  }, async () => {
    for (const built of ['dist/workflows/run.js', 'dist/store/sqlite/effect-ledger.js']) {
      if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
    }
    const next = seededRandom(SEED);
    const ledgerFile = join(dir, 'harmflow.db');
    const outbox = join(dir, 'outbox');
    const stats = { kills: 0, sends: 0, reconciledDone: 0, reconciledNotDone: 0, midItem: 0 };

    const count = (lines: readonly string[]) => {
      stats.sends += lines.filter((line) => line.startsWith('send ')).length;
      const reconciled = lines.filter((line) => line.startsWith('reconcile '));
      stats.reconciledDone += reconciled.filter((line) => line.endsWith(' done')).length;
      stats.reconciledNotDone += reconciled.filter((line) => line.endsWith(' notDone')).length;
    };

    for (let kill = 0; kill < KILLS; kill++) {
      const life = await startLife(ledgerFile, outbox);
      await life.progress(Math.floor(next() * (MAX_LINES_BEFORE_KILL + 1)));
      await sleep(next() * MAX_EXTRA_MS);
      expect(life.lines, `life ${kill} finished before its kill: raise ITEMS`).not.toContain('finished');
      life.child.kill('SIGKILL');
      await life.exited;
      expect(life.child.signalCode).toBe('SIGKILL');
      stats.kills += 1;
      const ended = new Set(life.lines.flatMap((line) => (line.startsWith('sent ') ? [line.split(' ')[1]] : [])));
      if (life.lines.some((line) => line.startsWith('send ') && !ended.has(line.slice('send '.length)))) {
        stats.midItem += 1;
      }
      count(life.lines);
    }
    const last = await startLife(ledgerFile, outbox);
    await last.exited;
    expect(last.child.exitCode).toBe(0);
    expect(last.lines.at(-1)).toBe('finished');
    count(last.lines);
    const leftToLast = last.lines.filter((line) => line.startsWith('sent ')).length;

    const keys = Array.from({ length: ITEMS }, (_, index) => `statement:c-${String(index).padStart(4, '0')}:2026-10`);
    const sent = readFileSync(outbox, 'utf8').split('\n').slice(0, -1);
    const times = new Map<string, number>();
    for (const key of sent) times.set(key, (times.get(key) ?? 0) + 1);
    expect(
      [...times].filter(([, n]) => n > 1),
      'sent twice',
    ).toEqual([]);
    expect(
      keys.filter((key) => !times.has(key)),
      'never sent',
    ).toEqual([]);
    expect(sent).toHaveLength(ITEMS);

    const ledger = openSqliteEffectLedger(ledgerFile);
    try {
      const records = await ledger.list();
      expect(records.map((record) => record.key)).toEqual(keys);
      expect(records.filter((record) => record.state !== 'done')).toEqual([]);
      const takenOver = records.filter((record) => record.claims > 1).length;
      const settledByReconcile = records.filter((record) => record.settledBy === 'reconcile').length;
      console.log(
        `seed ${SEED}: ${stats.kills} kills (${stats.midItem} inside an effect), ${stats.sends} sends started, ` +
          `${leftToLast} items left to the last life; ` +
          `claims found unknown and reconciled: ${stats.reconciledDone} done (effect had happened), ` +
          `${stats.reconciledNotDone} not done (performed then); ` +
          `ledger: ${takenOver} entries taken over, ${settledByReconcile} settled by reconcile`,
      );
      // Both crash windows were hit: a claim whose send had happened, and one whose send had not.
      expect(stats.reconciledDone).toBeGreaterThan(0);
      expect(stats.reconciledNotDone).toBeGreaterThan(0);
      expect(settledByReconcile).toBeGreaterThan(0);
    } finally {
      await ledger.close();
    }
  });
});
