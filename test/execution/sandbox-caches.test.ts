/**
 * The caches inside the OS sandbox, end to end with the real bubblewrap (skipped with one line where
 * it is missing, test/proc/bwrap.ts): the simulator, playing Claude Code through the real engine with
 * the gates off, writes into the shared npm cache, its execution's Cargo target and, through the
 * link in its Cargo home, the shared Cargo registry — and still cannot read harmflow.db, see another
 * execution's run directory, or touch the caches' own bookkeeping (`caches/.users`, `caches/.gc`):
 * what it writes there lands in the sandbox's empty stand-in for the state directory, never in it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import { bwrapTools } from '../proc/bwrap.js';
import { type Bench, makeBench, simulated } from './fixture.js';
import { outcomes, run, sandboxedFlags } from './sandbox-fixture.js';

const tools = await bwrapTools();

const NO_GATES = { operations: false, workspace: false, commands: false, nothingTwice: false };

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

describe.skipIf(tools === undefined)('the caches of a harness in the sandbox', () => {
  it('are writable, and the rest of the state directory is still out of reach', async () => {
    const database = readFileSync(bench.home.database);
    const other = bench.home.runDir('01otherexecution');
    mkdirSync(other, { recursive: true });
    mkdirSync(join(bench.home.caches, '.users'), { recursive: true });
    const scenario = bench.scenario('caches', {
      steps: [
        run('npm-cache', 'mkdir -p "$npm_config_cache/_cacache" && echo tarball > "$npm_config_cache/_cacache/entry"'),
        run('cargo-target', 'echo binary > "$CARGO_TARGET_DIR/app"'),
        run('cargo-registry', 'echo crate > "$CARGO_HOME/registry/serde.crate"'),
        run('database', `cat ${bench.home.database} > /dev/null`),
        run('other-execution', `ls ${bench.home.runs} | grep -q 01otherexecution`),
        run('users', `touch ${join(bench.home.caches, '.users', 'fake')}`),
        run('gc-lock', `touch ${join(bench.home.caches, '.gc')}`),
        { end: 'complete' },
      ],
    });
    const result = await bench.run(bench.task({ harness: simulated('claude-code', scenario), gates: NO_GATES }));
    const records = readEvents(bench.home.eventsFile(result.id));
    expect(sandboxedFlags(records)).toEqual([true]);

    expect(result.state).toBe('succeeded');
    expect(outcomes(records)).toEqual({
      'npm-cache': true,
      'cargo-target': true,
      'cargo-registry': true,
      database: false,
      'other-execution': false,
      users: expect.any(Boolean),
      'gc-lock': expect.any(Boolean),
    });
    expect(readFileSync(join(bench.home.caches, 'npm', '_cacache', 'entry'), 'utf8')).toBe('tarball\n');
    expect(readFileSync(join(bench.home.caches, 'cargo', 'registry', 'serde.crate'), 'utf8')).toBe('crate\n');
    expect(readFileSync(join(bench.home.executionCaches(result.id), 'cargo-target', 'app'), 'utf8')).toBe('binary\n');
    expect(readdirSync(join(bench.home.caches, '.users'))).toEqual([]);
    expect(existsSync(join(bench.home.caches, '.gc'))).toBe(false);
    expect(readFileSync(bench.home.database)).toEqual(database);
  });
});
