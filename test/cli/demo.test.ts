/**
 * `harmflow demo` as a user runs it on a fresh machine: the built bin, no API key, no harness CLI,
 * only the simulator. Both acts run; the test reads the printed story and the checked verdict, and
 * that `--clean` and act 2 leave nothing behind (no folder, no process).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/core/errors.js';
import { bwrapTools } from '../proc/bwrap.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

/** The demo takes about 16 s alone; the margin is for a machine busy with the rest of the suite. */
const DEMO_TIMEOUT_MS = 150_000;

let dir: string;
let run: { code: number | null; stdout: string; stderr: string };
let root: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-demo-test-'));
  const result = spawnSync(process.execPath, [BIN, 'demo', '--clean'], {
    encoding: 'utf8',
    // What a fresh machine has: PATH (node, git) and nothing of HarmFlow's but an unused home.
    env: { PATH: process.env.PATH, HARMFLOW_HOME: join(dir, 'unused') },
    timeout: DEMO_TIMEOUT_MS,
  });
  run = { code: result.status, stdout: result.stdout, stderr: result.stderr };
  root = /^repository {2}(\S+)\/project /m.exec(run.stdout)?.[1] ?? '';
}, DEMO_TIMEOUT_MS + 10_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('harmflow demo', () => {
  it('passes both acts, and the final line names the facts of each', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    const last = run.stdout.trim().split('\n').at(-1);
    expect(last).toMatch(
      /^PASS: act 1: one execution \(\w+\), 2 attempts: .* 2 commits each made once, branch pushed, 1 pull request \(the nothing-twice gate refused codex's second\), tests pass \(6 passed\); (every attempt ran in the OS sandbox \(bubblewrap\)|WITHOUT the OS sandbox \(.+\): the gates alone held)\. Act 2: the service was killed \(SIGKILL\) in the middle of turn t1 and started again; it reopened \w+, delivered t1 again once \(marked redelivered\) and the follow-up t2 once; t1's 2 files were written once \(the redelivery found them done\); 2 commits each made once \(t1's work, then t2's CHANGELOG entry\); succeeded, tests pass \(3 passed\)\.$/,
    );
  });

  it('act 1 runs each attempt in the OS sandbox where bubblewrap works, and says so in the timeline', async () => {
    const sandboxed = (await bwrapTools()) !== undefined;
    const started = run.stdout.split('\n').filter((line) => /attempt\.started/.test(line));
    expect(started.length).toBeGreaterThanOrEqual(2);
    for (const line of started) expect(line).toMatch(sandboxed ? /; sandboxed$/ : /; NOT sandboxed$/);
    expect(run.stdout.trim().split('\n').at(-1)).toContain(
      sandboxed ? 'every attempt ran in the OS sandbox (bubblewrap)' : 'WITHOUT the OS sandbox',
    );
  });

  it('act 1 shows the quota switch and the handoff', () => {
    expect(run.stdout).toContain('PLAYED BY THE SIMULATOR');
    expect(run.stdout).toMatch(/SWITCH claude-code → codex \(quota_exhausted/);
    expect(run.stdout).toMatch(/Already done: commit "Parse ISO week dates in parseDate"/);
    expect(run.stdout).toMatch(/context\.json {2}\S+context\.json/);
  });

  it("act 1 shows the gate refusing codex's second pull request, naming claude-code's", () => {
    expect(run.stdout).toMatch(
      /#2 codex\s+gate\.denied\s+gate nothing-twice refused Bash: HarmFlow's nothing-twice gate refused `gh pr create/,
    );
  });

  it('act 2 kills the service mid-turn, restarts it, and its timeline shows each delivery', () => {
    const act2 = run.stdout.slice(run.stdout.indexOf('Act 2 —'));
    const order = [
      /service │ HarmFlow service on http:\/\/127\.0\.0\.1:\d+/,
      /follow-up {3}"Also add a CHANGELOG entry for formatDate\." acknowledged as turn t2/,
      /kill -9 {5}the service \(pid \d+\) in the middle of turn t1/,
      /service │ reopened 1 execution\(s\) left open: \w+/,
      /#1 claude-code +turn\.started +t1 \(first delivery\): /,
      /#1 claude-code +attempt\.ended +attempt 1 on claude-code ended: crashed — /,
      /execution +execution\.resumed +carried on after a restart; attempt 1 was left open/,
      /#2 claude-code +turn\.started +t1 \(delivered again after a restart\): /,
      /#2 claude-code +turn\.redelivered +t1 delivered again: HarmFlow restarted while this turn ran/,
      /Already done: src\/format\.js already has the intended content/,
      /#2 claude-code +turn\.ended +t1 ended: completed after /,
      /#2 claude-code +turn\.started +t2 \(first delivery, resumes session \w+\): Also add a CHANGELOG entry/,
      /#2 claude-code +turn\.ended +t2 ended: completed after /,
      /execution\.ended +succeeded after 2 attempt\(s\)/,
      /service │ stopped/,
    ];
    let from = 0;
    for (const pattern of order) {
      const found = pattern.exec(act2.slice(from));
      expect(found, `${pattern} after position ${from}`).not.toBeNull();
      from += (found?.index ?? 0) + (found?.[0].length ?? 0);
    }
    expect(act2).toMatch(/execution +message\.queued +t2 queued \(2 waiting\): Also add a CHANGELOG entry/);
    expect(act2).not.toMatch(/API token/);
  });

  it('cleans up: the demo folder is gone, no process of it is left, the unused home was never made', () => {
    expect(root).not.toBe('');
    expect(existsSync(root)).toBe(false);
    expect(existsSync(join(dir, 'unused'))).toBe(false);
    const processes = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout;
    expect(processes).toContain('ps -eo args'); // the listing works
    expect(processes).not.toContain(root);
  });
});
