/**
 * Workflow items across worker processes: a run driven here (the coordinator) with the cluster
 * executor, its code and effect steps computed by two item-worker processes (cluster-item-worker.mjs,
 * running the built dist/; run `npm run build` first) over one PostgreSQL schema and one Redis
 * prefix. The effect appends its key to an outbox file and does not dedupe, so a line twice would be
 * an effect performed twice. Then one worker is killed with SIGKILL mid-step: the run must still
 * complete, every effect once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { EffectLedger } from '../../src/store/effect-ledger.js';
import { openPostgresEffectLedger } from '../../src/store/postgres/effect-ledger.js';
import { openPostgresResumeStore } from '../../src/store/postgres/resume-store.js';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { type ClusterExecutor, openClusterExecutor } from '../../src/workflows/cluster-executor.js';
import type { ItemLock } from '../../src/workflows/cluster-jobs.js';
import { loadWorkflowModule } from '../../src/workflows/module.js';
import { startRun } from '../../src/workflows/run.js';
import { waitFor } from '../cluster/fixture.js';
import { REDIS_AVAILABLE, TEST_REDIS, TEST_REDIS_URL, testPrefixes } from '../cluster/redis.js';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';

const WORKER = fileURLToPath(new URL('./cluster-item-worker.mjs', import.meta.url));
const MODULE = fileURLToPath(new URL('./cluster-workflow.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/workflows/cluster-worker.js', import.meta.url));
/** A lost worker's chunk is moved back within 1.5 s. */
const FAST_ITEM_LOCK: ItemLock = { lockDurationMs: 1000, stalledIntervalMs: 500, maxStalledCount: 2 };

interface WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
}

describe.runIf(REDIS_AVAILABLE && POSTGRES_AVAILABLE)('workflow items on two worker processes', () => {
  const schemas = testSchemas();
  const prefixes = testPrefixes();
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function setUp(): Promise<{
    schema: string;
    prefix: string;
    outbox: string;
    store: ResumeStore;
    ledger: EffectLedger;
    executor: ClusterExecutor;
    startWorker(): Promise<WorkerProcess>;
  }> {
    if (!existsSync(BUILT)) throw new Error('dist/workflows/cluster-worker.js is missing: run `npm run build` first');
    const schema = schemas.newSchema();
    const prefix = prefixes.newPrefix();
    const dir = mkdtempSync(join(tmpdir(), 'harmflow-cluster-items-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const outbox = join(dir, 'outbox');
    const store = await openPostgresResumeStore(TEST_POSTGRES_URL, { schema });
    closers.push(() => store.close());
    const ledger = await openPostgresEffectLedger(TEST_POSTGRES_URL, { schema });
    closers.push(() => ledger.close());
    const executor = await openClusterExecutor({
      connection: TEST_REDIS,
      prefix,
      module: MODULE,
      chunkItems: 5,
      onError: () => {},
    });
    closers.push(() => executor.close());
    const startWorker = async (): Promise<WorkerProcess> => {
      const config = {
        redisUrl: TEST_REDIS_URL,
        prefix,
        postgresUrl: TEST_POSTGRES_URL,
        schema,
        concurrency: 1,
        lock: FAST_ITEM_LOCK,
      };
      const child = spawn(process.execPath, [WORKER, JSON.stringify(config)], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HARMFLOW_TEST_OUTBOX: outbox },
      });
      const exited = once(child, 'exit');
      closers.push(async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
      });
      let out = '';
      let err = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      await waitFor('the worker to be ready', () => {
        if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}): ${err}`);
        return out.includes('ready') ? true : undefined;
      });
      return { child, exited };
    };
    return { schema, prefix, outbox, store, ledger, executor, startWorker };
  }

  /** The outbox's lines, in order. */
  const sent = (outbox: string): string[] =>
    existsSync(outbox)
      ? readFileSync(outbox, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
      : [];
  const keys = (count: number) =>
    Array.from({ length: count }, (_, index) => `send:c-${String(index).padStart(4, '0')}`);

  it('computes every item of a code and an effect step on two workers, each effect performed once', async () => {
    const { outbox, store, ledger, executor, startWorker } = await setUp();
    const workers = [await startWorker(), await startWorker()];
    const { workflow } = await loadWorkflowModule(MODULE);
    const result = await startRun(workflow, {
      store,
      ledger,
      executor,
      module: MODULE,
      params: { items: 40, outbox, delayMs: 5 },
    });
    expect(result.run.state).toBe('succeeded');
    expect(result.steps.map(({ step, computed, failed }) => ({ step, computed, failed }))).toStrictEqual([
      { step: 'double', computed: 40, failed: 0 },
      { step: 'send', computed: 40, failed: 0 },
    ]);
    expect(sent(outbox).sort()).toStrictEqual(keys(40));
    const items = await store.listRunItems(result.run.id);
    expect(items.filter((item) => item.status === 'done')).toHaveLength(80);
    // Both workers performed effects: the receipts name their pids.
    const effects = await ledger.list({ run: result.run.id });
    expect(effects.every((effect) => effect.state === 'done')).toBe(true);
    const pids = new Set(
      effects.map((effect) => (effect.state === 'done' ? (effect.result as { pid: number }).pid : 0)),
    );
    expect([...pids].sort()).toStrictEqual(workers.map(({ child }) => child.pid).sort());
    // The outputs downstream read were the workers' own: `send` read `double`'s output.
    const receipt = effects.find((effect) => effect.key === 'send:c-0007');
    expect(receipt?.state === 'done' && receipt.result).toMatchObject({ n: 14 });
    // The workers recorded what their items spent, with the items: one try each, every figure
    // reported (each send waited 5 ms), and the coordinator the steps' wall-clock time.
    const spend = await store.listSpend([result.run.id]);
    expect(
      spend.map(({ drive, step, items, failed, tries, unreportedItems, unreportedTokens }) => ({
        drive,
        step,
        items,
        failed,
        tries,
        unreportedItems,
        unreportedTokens,
      })),
    ).toStrictEqual([
      { drive: 1, step: 'double', items: 40, failed: 0, tries: 40, unreportedItems: 0, unreportedTokens: 0 },
      { drive: 1, step: 'send', items: 40, failed: 0, tries: 40, unreportedItems: 0, unreportedTokens: 0 },
    ]);
    expect(spend[1]?.itemMs).toBeGreaterThanOrEqual(40 * 5);
    expect(spend[1]?.wallMs).toBeGreaterThan(0);
  });

  it('completes the run, each effect once, when a worker is killed with SIGKILL mid-step', async () => {
    const { outbox, store, ledger, executor, startWorker } = await setUp();
    const doomed = await startWorker();
    const survivor = await startWorker();
    const { workflow } = await loadWorkflowModule(MODULE);
    const running = startRun(workflow, {
      store,
      ledger,
      executor,
      module: MODULE,
      params: { items: 60, outbox, delayMs: 40 },
    });
    // Mid-step: some effects sent, most not yet.
    await waitFor('the first effects', () => (sent(outbox).length >= 8 ? true : undefined), 20_000);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const killedAt = sent(outbox).length;
    const result = await running;
    expect(killedAt).toBeLessThan(60);
    expect(result.run.state).toBe('succeeded');
    expect(sent(outbox).sort()).toStrictEqual(keys(60));
    const effects = await ledger.list({ run: result.run.id });
    expect(effects.filter((effect) => effect.state === 'done')).toHaveLength(60);
    const items = await store.listRunItems(result.run.id, 'send');
    expect(items.filter((item) => item.status === 'done')).toHaveLength(60);
    // Each item's spend was committed with it, once: by the worker that committed it (a chunk the
    // killed worker committed is not counted again by the one that took it over).
    const spend = await store.listSpend([result.run.id]);
    expect(spend.map(({ step, items: counted, unreportedItems }) => [step, counted, unreportedItems])).toStrictEqual([
      ['double', 60, 0],
      ['send', 60, 0],
    ]);
    // The survivor carried on what the doomed one had taken.
    const byPid = new Map<number, number>();
    for (const effect of effects) {
      const pid = effect.state === 'done' ? (effect.result as { pid?: number }).pid : undefined;
      if (pid !== undefined) byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
    }
    expect(byPid.get(survivor.child.pid ?? 0) ?? 0).toBeGreaterThan(0);
    process.stdout.write(
      `SIGKILL after ${killedAt} of 60 effects; effects by pid ${JSON.stringify([...byPid])}, ${effects.filter((effect) => effect.settledBy === 'reconcile').length} settled by reconcile\n`,
    );
  }, 60_000);
});
