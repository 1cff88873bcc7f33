/**
 * `harmflow harnesses` shows the quota the registry holds for every link, simulated ones included:
 * a real run (claude-code simulated out of quota, then codex simulated) fills the registry of a
 * state directory, and the built bin lists each simulated link under its harness, with the same
 * columns as the harness's own row. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkOf } from '../../src/cli/harnesses.js';
import { EXIT } from '../../src/core/errors.js';
import { type Bench, makeBench, simulated } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

let bench: Bench;
let claude: string;
let codex: string;

beforeAll(async () => {
  bench = makeBench();
  claude = bench.scenario('claude', { steps: [{ end: 'quota' }] });
  codex = bench.scenario('codex', { steps: [{ say: 'done' }, { end: 'complete' }] });
  const result = await bench.run(
    bench.task({
      name: 'harnesses-quota',
      repo: 'repo',
      baseRef: 'main',
      prompt: 'Do it.',
      harness: simulated('claude-code', claude),
      fallbacks: [simulated('codex', codex)],
    }),
  );
  expect(result.state).toBe('succeeded');
}, 120_000);
afterAll(async () => {
  await bench?.cleanup();
});

function harnesses(...args: string[]) {
  const ran = spawnSync(process.execPath, [BIN, 'harnesses', '--home', bench.home.root, ...args], {
    encoding: 'utf8',
    // No harness CLI on this PATH: the simulated rows are all the registry's.
    env: { PATH: '/usr/bin:/bin' },
  });
  expect(ran.status, ran.stderr).toBe(EXIT.ok);
  return ran.stdout;
}

describe('harmflow harnesses', () => {
  it("lists each simulated link's quota under its harness, in the same columns", () => {
    const lines = harnesses().trimEnd().split('\n');
    const [header] = lines;
    const row = (harness: string, scenario: string) =>
      lines.find((line) => line.startsWith(harness) && line.endsWith(`simulated: ${scenario}`));
    const claudeRow = row('claude-code', claude);
    const codexRow = row('codex', codex);
    expect(claudeRow).toMatch(/^claude-code +- +- +out until \S+/);
    expect(codexRow).toMatch(/^codex +- +- +ok +simulated: /);
    // The QUOTA column starts where the header's does.
    expect(claudeRow?.indexOf('out until')).toBe(header?.indexOf('QUOTA'));
    // The harnesses' own rows stay: nothing is known of the real CLIs' quota.
    expect(lines.filter((line) => / unknown +not on PATH/.test(line))).toHaveLength(4);
  });

  it('--json holds every account as the registry does', () => {
    const rows = JSON.parse(harnesses('--json')) as { harness: string; quota: { account: string; state: string }[] }[];
    const quota = rows.find((entry) => entry.harness === 'claude-code')?.quota;
    expect(quota).toEqual([expect.objectContaining({ account: `sim:${claude}`, state: 'exhausted' })]);
  });
});

describe('linkOf', () => {
  it('names a simulated link by its scenario, with its account when it names one, and a real account by name', () => {
    expect(linkOf('sim:/s/quota.yaml')).toBe('simulated: /s/quota.yaml');
    expect(linkOf('sim:work:/s/quota.yaml')).toBe('simulated, account work: /s/quota.yaml');
    expect(linkOf('work')).toBe('account work');
  });
});
