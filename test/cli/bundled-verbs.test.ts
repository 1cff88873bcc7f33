/**
 * The everyday verbs run from bundled entries (src/cli/bundled-verbs.ts, scripts/bundle.mjs): each
 * must answer exactly as the whole program does — the same output, errors and exit code — for the
 * verbs, their help and their refusals. One real run (claude-code switching to codex, simulated)
 * gives them something to read. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const WHOLE = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const BUNDLE_DIR = fileURLToPath(new URL('../../dist/cli-bundle/', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));
/** A workflow file of a model step on a fake provider, with an output schema of the file's own zod. */
const SPEND_WORKFLOW = fileURLToPath(new URL('./spend-workflow.mjs', import.meta.url));

let bench: Bench;
let home: string;
let id: string;

function run(entry: string, args: readonly string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [entry, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HARMFLOW_HOME: home, ...GIT_IDENTITY, ...env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  bench = makeBench();
  home = join(bench.dir, 'home');
  const claude = bench.scenario('claude', {
    steps: [{ write: { path: 'a.txt', content: 'a\n' } }, { commit: 'Add a' }, { end: 'quota' }],
  });
  const codex = bench.scenario('codex', { steps: [{ commit: 'Add a' }, { say: 'done' }, { end: 'complete' }] });
  const task = join(bench.dir, 'task.yaml');
  writeFileSync(
    task,
    stringify({
      name: 'bundled',
      repo: 'repo',
      baseRef: 'main',
      prompt: 'Do it.',
      harness: simulated('claude-code', claude),
      fallbacks: [simulated('codex', codex)],
    }),
  );
  const ran = run(BIN, ['run', task]);
  expect(ran.code, ran.stderr).toBe(EXIT.ok);
  id = /execution (\w{26}): succeeded/.exec(ran.stdout)?.[1] ?? '';
  expect(id).not.toBe('');
}, 120_000);
afterAll(async () => {
  await bench?.cleanup();
});

describe('a bundled verb answers as the whole program does', () => {
  const cases: [string, () => string[]][] = [
    ['--help', () => ['--help']],
    ['-h', () => ['-h']],
    ['--version', () => ['--version']],
    ['-V', () => ['-V']],
    ['ls', () => ['ls']],
    ['ls --all', () => ['ls', '--all']],
    ['ls --all --json', () => ['ls', '--all', '--json']],
    ['ls --help', () => ['ls', '--help']],
    ['ls with an unknown option', () => ['ls', '--bogus']],
    ['show by a prefix', () => ['show', id.slice(0, 8)]],
    ['show --json', () => ['show', id, '--json']],
    ['show of no execution', () => ['show', '0123456789']],
    ['show of a too short id', () => ['show', 'ab']],
    ['show without an id', () => ['show']],
    ['events', () => ['events', id]],
    ['events by a prefix', () => ['events', id.slice(0, 6)]],
    ['events --json --from 3', () => ['events', id, '--json', '--from', '3']],
    ['events of a whole id that is no execution', () => ['events', '0123456789abcdefghjkmnpqrs']],
    ['events --help', () => ['events', '--help']],
    ['context', () => ['context', id]],
    ['context --json', () => ['context', id.toUpperCase(), '--json']],
    ['ui without a terminal', () => ['ui']],
    ['workflow --help', () => ['workflow', '--help']],
    ['workflow ls', () => ['workflow', 'ls']],
    ['workflow run over its budget', () => ['workflow', 'run', SPEND_WORKFLOW, '--max-usd', '0.01']],
    ['workflow run of a file that is not there', () => ['workflow', 'run', join(bench.dir, 'nowhere.mjs')]],
  ];
  for (const [name, args] of cases) {
    it(name, { timeout: 30_000 }, () => {
      const bundled = run(BIN, args());
      expect(bundled).toEqual(run(WHOLE, args()));
      expect(bundled.stdout + bundled.stderr).not.toBe('');
    });
  }

  it('--version is the package version', () => {
    const version = (JSON.parse(readFileSync(PACKAGE, 'utf8')) as { version: string }).version;
    expect(run(BIN, ['--version']).stdout).toBe(`${version}\n`);
  });
});

describe('the record verbs open only what they need', () => {
  it('events and context of a whole id read its files without the database; a prefix needs it', () => {
    const database = join(home, 'harmflow.db');
    const aside = join(bench.dir, 'harmflow.db.aside');
    renameSync(database, aside);
    mkdirSync(database); // a directory SQLite cannot open: any verb that opens the store fails
    try {
      const events = run(BIN, ['events', id]);
      expect(events.code, events.stderr).toBe(EXIT.ok);
      expect(events.stdout).toMatch(/execution\.ended/);
      expect(run(BIN, ['context', id, '--json']).code).toBe(EXIT.ok);
      expect(run(BIN, ['events', id.slice(0, 8)]).code).not.toBe(EXIT.ok);
      expect(run(BIN, ['ls']).code).not.toBe(EXIT.ok);
    } finally {
      spawnSync('rm', ['-rf', database]);
      renameSync(aside, database);
    }
    expect(run(BIN, ['events', id.slice(0, 8)]).code).toBe(EXIT.ok);
  });
});

describe("the workflow entry and a workflow file's own zod", () => {
  // The bundle holds its own zod; the file imports node_modules' (test/cli/zod-error-workflow.mjs).
  it('tells a ZodError of the file for a schema error, as the whole program does', () => {
    const file = fileURLToPath(new URL('./zod-error-workflow.mjs', import.meta.url));
    const args = ['workflow', 'run', file, '--quiet', '--yes'];
    const withoutIds = (result: ReturnType<typeof run>) => ({
      ...result,
      stdout: result.stdout.replace(/\b[0-9a-hjkmnp-tv-z]{26}\b/g, 'RUN'),
    });
    const bundled = withoutIds(run(BIN, args));
    expect(bundled.stdout).toMatch(/step check item all: invalid: ✖ Invalid input: expected string, received number/);
    expect(bundled).toEqual(withoutIds(run(WHOLE, args)));
  });
});

describe("the workflow entry's code cache", () => {
  // Code compiled from a code cache cannot call import() (src/core/module-importer.ts): the second
  // run, the first from the cache, is the one that would fail to load the file.
  it("loads the user's workflow file on the run that writes the cache and on the runs that use it", () => {
    // Over its budget: the file is loaded and planned, and nothing starts.
    const args = ['workflow', 'run', SPEND_WORKFLOW, '--max-usd', '0.01'];
    const whole = run(WHOLE, args);
    expect(whole.stdout).toMatch(/^label +model +3 /m);
    expect(whole.code).toBe(EXIT.planOverLimits);
    rmSync(join(BUNDLE_DIR, 'workflow.cjs.workflow.cache'), { force: true });
    for (const round of ['writes the cache', 'uses it', 'uses it again']) {
      expect(run(BIN, args), round).toEqual(whole);
    }
    expect(statSync(join(BUNDLE_DIR, 'workflow.cjs.workflow.cache')).size).toBeGreaterThan(1000);
  });
});

describe("the records entry's code cache", () => {
  it('is written by a run, and one V8 rejects is replaced while the verb still answers', () => {
    const cache = join(BUNDLE_DIR, 'records.cjs.ls.cache');
    expect(run(BIN, ['ls', '--all']).code).toBe(EXIT.ok);
    expect(statSync(cache).size).toBeGreaterThan(1000);
    writeFileSync(cache, 'not a code cache');
    const listed = run(BIN, ['ls', '--all']);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.stdout).toContain(id);
    expect(statSync(cache).size).toBeGreaterThan(1000);
  });
});
