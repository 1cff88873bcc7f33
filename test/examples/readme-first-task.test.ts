/**
 * The README's "A first simulated task" runs as it is written (issue 25): its shell block is copied
 * out of README.md and run by bash, unchanged, in a folder of the test's own — `npx harmflow` is the
 * built bin (a two-line `npx` first on PATH, so no registry is asked), `mktemp -d` makes its folder
 * under the test's TMPDIR, and HARMFLOW_HOME is the test's. It must end as the README says: a switch
 * from claude-code to codex, codex's push and pull request on the fake forge, `succeeded`. So the
 * README cannot go stale. Needs dist/ built (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GIT_IDENTITY, git } from '../execution/fixture.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'harmflow.js');
const HEADING = '## A first simulated task';

/** The first ```sh block after the README's heading, as written. */
function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.indexOf(`\n${HEADING}\n`);
  if (section < 0) throw new Error(`README.md has no "${HEADING}" section`);
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(readme.slice(section));
  if (block?.[1] === undefined) throw new Error(`README.md's "${HEADING}" has no sh block`);
  return block[1];
}

const dir = mkdtempSync(join(tmpdir(), 'harmflow-readme-first-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's first simulated task", () => {
  it('runs as written: claude-code runs out, codex carries on, pushes and opens the pull request', () => {
    const bin = join(dir, 'bin');
    const temp = join(dir, 'tmp');
    const home = join(dir, 'state');
    mkdirSync(bin);
    mkdirSync(temp);
    writeFileSync(
      join(bin, 'npx'),
      `#!/bin/sh\n[ "$1" = harmflow ] || { echo "npx $1: not in this test" >&2; exit 99; }\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`,
    );
    chmodSync(join(bin, 'npx'), 0o755);
    writeFileSync(join(dir, 'snippet.sh'), readmeSnippet());
    const ran = spawnSync('bash', ['-e', join(dir, 'snippet.sh')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: dir,
        TMPDIR: temp,
        HARMFLOW_HOME: home,
        GIT_CONFIG_NOSYSTEM: '1',
        ...GIT_IDENTITY,
      },
      timeout: 120_000,
    });
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/SWITCH claude-code → codex \(quota_exhausted/);
    expect(ran.stdout).toMatch(/Already done: commit "Add hello.txt"/);
    expect(ran.stdout).toContain('pull request https://forge.example/hello/pull/1');
    const id = /^execution (\S+): succeeded$/m.exec(ran.stdout)?.[1];
    expect(id).toBeDefined();

    // The pull request is on the fake forge in the state directory, for the execution's branch, pushed.
    const pulls = JSON.parse(readFileSync(join(home, 'forge', 'pulls.json'), 'utf8')) as { head: string }[];
    expect(pulls).toMatchObject([{ number: 1, repo: 'hello', title: 'Add hello.txt', head: `harmflow/hello-${id}` }]);
    const [work] = readdirSync(temp);
    expect(git(join(temp, work ?? ''), '--git-dir=origin.git', 'log', '--format=%s', `harmflow/hello-${id}`)).toBe(
      'Add hello.txt\nStart',
    );
  });
});
