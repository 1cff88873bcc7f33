/**
 * A turn source that keeps its turns elsewhere (cluster mode) gets `flush()` awaited after every
 * `next()` and `done()`, before the turn reaches a harness: a source that refuses to move on while a
 * change is not yet durable (as the cluster inbox does) drives a two-turn execution to its end, and
 * each turn is recorded done before the next one starts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecution } from '../../src/execution/create.js';
import { carryOn, harnessPath } from '../../src/execution/engine.js';
import { releaseOwnership } from '../../src/execution/owner-file.js';
import { preflight } from '../../src/execution/preflight.js';
import type { Turn, TurnSource } from '../../src/execution/turns.js';
import { type Bench, FORGE_BIN, GIT_IDENTITY, makeBench, simulated } from './fixture.js';

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

/** Two turns in memory; a change is "durable" only after flush, and next() refuses to run ahead of it. */
class SlowDurableSource implements TurnSource {
  readonly log: string[] = [];
  readonly #turns: Turn[] = [
    { id: 't1', text: 'Do the work.', redelivered: false },
    { id: 't2', text: 'also add a test', redelivered: false },
  ];
  #unflushed = false;

  next(): Turn | undefined {
    if (this.#unflushed) throw new Error('next() before the last change was flushed');
    this.#unflushed = true;
    this.log.push(`next ${this.#turns[0]?.id ?? '-'}`);
    return this.#turns[0];
  }

  done(turn: Turn): void {
    if (this.#unflushed) throw new Error('done() before the last change was flushed');
    this.#unflushed = true;
    this.#turns.shift();
    this.log.push(`done ${turn.id}`);
  }

  async flush(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.#unflushed = false;
    this.log.push('flush');
  }
}

describe('TurnSource.flush', () => {
  it('is awaited after each next() and done(), so each turn is durable before the next starts', {
    timeout: 30_000,
  }, async () => {
    const scenario = bench.scenario('two-turns', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const task = bench.task({ harness: simulated('claude-code', scenario) });
    const hostEnv = { ...process.env, ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: bench.forgeDir };
    const checked = await preflight(task, harnessPath([FORGE_BIN], hostEnv));
    const created = await createExecution(task, checked, bench.home, bench.store, 'queued');
    const source = new SlowDurableSource();
    try {
      const result = await carryOn(created.id, source, {
        home: bench.home,
        store: bench.store,
        extraPath: [FORGE_BIN],
        hostEnv,
        interruptBudgetMs: 1_000,
      });
      expect(result.state).toBe('succeeded');
    } finally {
      releaseOwnership(bench.home.ownerFile(created.id));
    }
    expect(source.log).toEqual([
      'next t1',
      'flush',
      'done t1',
      'flush',
      'next t2',
      'flush',
      'done t2',
      'flush',
      'next -',
      'flush',
    ]);
  });
});
