/** `harmflow workflow review` through the built CLI, on a small workflow with a review step. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'harmflow.js');
const FILE = join(ROOT, 'test', 'fixtures', 'workflows', 'reviewed.mjs');

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'harmflow-review-cli-'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

function cli(wording: string, ...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'workflow', ...args, '--home', home], {
    encoding: 'utf8',
    env: { ...process.env, LETTER_WORDING: wording, REVIEWED_OUTBOX: join(home, 'outbox') },
  });
}
const sent = () =>
  existsSync(join(home, 'outbox')) ? readFileSync(join(home, 'outbox'), 'utf8').split('\n').filter(Boolean) : [];

describe('harmflow workflow review', () => {
  it('lists what waits with a diff, approves and rejects; a changed letter is up again', () => {
    const first = cli('Hello', 'run', FILE);
    expect(first.status).toBe(13);
    const run = /run (\w{26}): waiting — 3 item\(s\) await review/.exec(first.stdout)?.[1] ?? '';
    expect(run).toHaveLength(26);
    expect(sent()).toEqual([]);

    const listed = cli('Hello', 'review', run);
    expect(listed.stdout).toContain('3 item(s) wait for review');
    expect(listed.stdout).toMatch(/approve c1 — new\n {2}\+ Hello c1/);
    expect(cli('Hello', 'review', run, '--reject', 'c3').stderr).toMatch(/--reject needs --reason/);
    expect(cli('Hello', 'review', run, '--approve', 'c1', '--approve', 'c2', '--by', 'ana').stdout).toMatch(
      /2 decided by ana/,
    );
    expect(cli('Hello', 'review', run, '--reject', 'c3', '--reason', 'wrong address', '--by', 'ana').status).toBe(0);

    const resumed = cli('Hello', 'resume', run);
    expect(resumed.status).toBe(10);
    expect(resumed.stdout).toMatch(/rejected by ana: wrong address/);
    expect(sent()).toEqual(['letter:c1', 'letter:c2']);

    // New wording: every letter changed, so every approval is void; the reviewer sees both versions,
    // and what changed them. c3, rejected before and never approved, is diffed against its earlier letter.
    expect(cli('Dear', 'resume', run).status).toBe(13);
    const again = cli('Dear', 'review', run);
    expect(again.stdout).toMatch(
      /approve c1 — upstream\n {2}because: letter c1: version Hello → Dear\n {2}- Hello c1\n {2}\+ Dear c1\n {2}\(against the version ana approved at /,
    );
    expect(again.stdout).toMatch(
      /approve c3 — changed in this run\n {2}because: letter c3: version Hello → Dear\n {2}- Hello c3\n {2}\+ Dear c3\n {2}\(against the version before the change\)/,
    );
    cli('Dear', 'review', run, '--approve-all');
    expect(cli('Dear', 'resume', run).status).toBe(0);
    // c1 and c2 were sent before; only c3 (rejected before, approved now) is sent.
    expect(sent()).toEqual(['letter:c1', 'letter:c2', 'letter:c3']);
  });
});
