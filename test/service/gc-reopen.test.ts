/**
 * The worktree cleanup and follow-ups in one service: a follow-up to a succeeded execution whose
 * worktree gc removed checks the branch out again at the same path and carries on in the harness's
 * session; while gc holds an execution (removing its worktree), a follow-up is refused with the
 * reason, not run in a folder that is going away.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/core/errors.js';
import { claimOwnership, releaseOwnership } from '../../src/execution/owner-file.js';
import { collectWorktrees } from '../../src/execution/worktree-gc.js';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from './bench.js';

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

describe('gc and follow-ups', () => {
  it('a follow-up after gc removed the worktree brings it back and carries on', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    await bench.registry.settled();
    // Nothing was committed: the worktree is clean and its branch is at the base, so gc takes it.
    const report = await collectWorktrees({
      home: bench.home,
      store: bench.store,
      now: Date.now() + 1_000,
      retentionMs: 0,
      dryRun: false,
    });
    expect(report.entries.map((entry) => [entry.id, entry.action])).toEqual([[execution.id, 'removed']]);
    expect(existsSync(execution.worktree)).toBe(false);

    await bench.registry.send(execution.id, 'one more thing');
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(existsSync(execution.worktree)).toBe(true);
    expect(existsSync(bench.home.worktreeRemovedFile(execution.id))).toBe(false);
    const reopened = bench.events(execution.id).find((record) => record.type === 'execution.reopened');
    expect(reopened?.data).toMatchObject({ worktreeRestored: true });
    const turns = bench.events(execution.id).filter((record) => record.type === 'turn.started');
    expect(turns.map((record) => record.data.turn)).toEqual(['t1', 't2']);
  });

  it('refuses a follow-up while this process holds the execution for gc', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const scenario = bench.scenario('done', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    await bench.registry.settled();
    const ownerFile = bench.home.ownerFile(execution.id);
    expect(claimOwnership(ownerFile)).toBe(true);
    // The same process cannot claim it twice: the registry is told no, as another process would be.
    expect(claimOwnership(ownerFile)).toBe(false);
    await expect(bench.registry.send(execution.id, 'now')).rejects.toThrow(ConflictError);
    await expect(bench.registry.send(execution.id, 'now')).rejects.toThrow(/its worktree is being removed \(gc\)/);
    releaseOwnership(ownerFile);
    await bench.registry.send(execution.id, 'now');
    await bench.registry.settled();
    expect((await bench.store.getExecution(execution.id))?.state).toBe('succeeded');
  });
});
