/**
 * What a harness prints reaches the user's terminal inert (issue 21): `harmflow run`'s live timeline,
 * `events`, `context` and `show` print its ESC sequences, BEL and other controls as visible escapes
 * (`\x1b`), so a harness cannot write the clipboard (OSC 52), clear the screen (CSI) or hide a link
 * (OSC 8). `--json` keeps them, JSON-escaped. The built bin, the simulator playing claude-code.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type Bench, GIT_IDENTITY, makeBench } from '../execution/fixture.js';
import { type Ran, spawnHarmflow } from './spawn-harmflow.js';

const CLIPBOARD = '\x1b]52;c;ZWNobyBvd25lZA==\x07';
const CLEAR = '\x1b[2J';
const LINK = '\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\';
/** What a terminal would act on: C0 but newline and tab, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point.
const ACTIVE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

let bench: Bench;
let env: Record<string, string | undefined>;
let run: Ran;
let id: string;

beforeAll(async () => {
  bench = makeBench();
  const scenario = bench.scenario('escapes', {
    steps: [
      { plan: [{ text: `Open a pull request ${CLEAR}`, status: 'in_progress' }] },
      { say: `copied ${CLIPBOARD} see ${LINK}` },
      { plan: [{ text: `Open a pull request ${CLEAR}`, status: 'completed' }] },
      { end: { complete: { message: `all done\r${CLEAR}\x9b31m` } } },
    ],
  });
  const file = join(bench.dir, 'task.yaml');
  writeFileSync(
    file,
    stringify({
      name: 'escapes',
      repo: 'repo',
      baseRef: 'main',
      prompt: 'Tidy up.',
      harness: { harness: 'claude-code', simulate: scenario, env: GIT_IDENTITY },
      timeout: '2m',
    }),
  );
  env = { ...process.env, HARMFLOW_HOME: join(bench.dir, 'state') };
  run = await spawnHarmflow(['run', file], { env });
  id = /^execution (\w{26}): /m.exec(run.stdout)?.[1] ?? '';
}, 120_000);
afterAll(async () => {
  await bench.cleanup();
});

describe('harness text printed to a terminal', () => {
  it('is inert in the live timeline of harmflow run', () => {
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(ACTIVE);
    expect(run.stdout).toContain('copied \\x1b]52;c;ZWNobyBvd25lZA==\\x07 see \\x1b]8;;https://evil.example');
    expect(run.stdout).toContain('"Open a pull request \\x1b[2J"');
  });

  it('is inert in harmflow events, context and show', async () => {
    for (const args of [
      ['events', id],
      ['context', id],
      ['show', id],
    ]) {
      const shown = await spawnHarmflow(args, { env });
      expect(shown.code, args.join(' ')).toBe(0);
      expect(shown.stdout, args.join(' ')).not.toMatch(ACTIVE);
    }
    const events = await spawnHarmflow(['events', id], { env });
    expect(events.stdout).toContain('copied \\x1b]52;c;ZWNobyBvd25lZA==\\x07');
    expect(events.stdout).toContain('[x] Open a pull request \\x1b[2J');
    const context = await spawnHarmflow(['context', id], { env });
    expect(context.stdout).toContain('all done\\x0d\\x1b[2J\\x9b31m');
  });

  it('is kept, JSON-escaped, by events --json', async () => {
    const json = await spawnHarmflow(['events', id, '--json'], { env });
    expect(json.stdout).not.toContain('\x1b');
    const said = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { text?: string } })
      .find((record) => record.type === 'message');
    expect(said?.data.text).toBe(`copied ${CLIPBOARD} see ${LINK}`);
  });
});
