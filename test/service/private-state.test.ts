/**
 * The state directory is its owner's alone (issue 21): it holds prompts and transcripts. After a
 * service runs an execution in a state directory made with the usual 0755, the directory is 0700 and
 * every file under runs/ and the database are 0600, whatever the process's umask (never changed: the
 * harnesses inherit it and make the user's worktree files with it).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simulated } from '../execution/fixture.js';
import { makeServiceBench, type ServiceBench } from './bench.js';

let bench: ServiceBench;
beforeEach(() => {
  bench = makeServiceBench();
});
afterEach(async () => {
  await bench.cleanup();
});

/** The permission bits of `path`. */
const modeOf = (path: string): number => statSync(path).mode & 0o777;

/** Every file under `dir`, at any depth, but the attempts' private harness homes (the harness's own). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => !/\/attempts\/\d+\/home(\/|$)/.test(`/${path}`))
    .map((path) => join(dir, path))
    .filter((path) => statSync(path).isFile());
}

describe('the state directory', () => {
  it('is 0700 and its run files and database 0600 after an execution', { timeout: 20_000 }, async () => {
    const scenario = bench.scenario('quick', {
      pace: '50ms',
      steps: [{ plan: [{ text: 'Say hello', status: 'completed' }] }, { say: 'hello' }, { end: 'complete' }],
    });
    const execution = await bench.registry.submit(bench.task({ harness: simulated('claude-code', scenario) }));
    await bench.registry.settled();
    expect(await bench.store.getExecution(execution.id)).toMatchObject({ state: 'succeeded' });
    expect(process.umask() & 0o077).not.toBe(0o077);

    expect(modeOf(bench.home.root).toString(8)).toBe('700');
    const files = [
      bench.home.database,
      `${bench.home.database}-wal`,
      `${bench.home.database}-shm`,
      ...filesUnder(bench.home.runs),
    ];
    expect(files.map((file) => file.slice(bench.home.root.length + 1))).toEqual(
      expect.arrayContaining([
        'harmflow.db',
        `runs/${execution.id}/events.jsonl`,
        `runs/${execution.id}/context.json`,
        `runs/${execution.id}/queue.json`,
        `runs/${execution.id}/attempts/1/stdout.log`,
      ]),
    );
    // An attempt's gates file is read-only besides (docs/gates.md, "The gate configuration").
    const modeFor = (file: string) => (file.endsWith('/gates.json') ? 0o400 : 0o600);
    const loose = files
      .filter((file) => modeOf(file) !== modeFor(file))
      .map((file) => `${file}: ${modeOf(file).toString(8)}`);
    expect(loose).toEqual([]);
  });
});
