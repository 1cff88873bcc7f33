/**
 * `harmflow gc`, `ls` and `show` as users run them (the built bin, real processes) over a state
 * directory holding ended executions with real worktrees: the dry run lists what would go and what is
 * kept and why and changes nothing; gc removes; `ls` shows the disk each execution takes and marks a
 * removed worktree; `show` says when gc removed it. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/core/errors.js';
import type { ExecutionRecord } from '../../src/store/store.js';
import { endedExecution } from '../execution/ended-execution.js';
import { type Bench, GIT_IDENTITY, git, makeBench } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const DAY_MS = 86_400_000;

let bench: Bench;
let clean: ExecutionRecord;
let dirty: ExecutionRecord;
let young: ExecutionRecord;
beforeEach(async () => {
  bench = makeBench();
  const ended = (taskName: string, daysAgo: number) =>
    endedExecution({
      home: bench.home,
      store: bench.store,
      repo: bench.repo,
      taskName,
      endedAt: new Date(Date.now() - daysAgo * DAY_MS),
    });
  clean = await ended('clean-task', 9);
  dirty = await ended('dirty-task', 10);
  writeFileSync(join(dirty.worktree, 'draft.txt'), 'not committed\n');
  young = await ended('young-task', 1);
});
afterEach(async () => {
  await bench.cleanup();
});

function harmflow(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HARMFLOW_HOME: bench.home.root, ...GIT_IDENTITY },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SIZE = String.raw`\d+(?:\.\d)? (?:B|KiB|MiB)`;

describe('harmflow gc', () => {
  it('--dry-run lists what would go and what is kept, and why, and changes nothing', () => {
    const before = [readdirSync(bench.home.worktrees).sort(), git(bench.repo, 'worktree', 'list')];

    const { code, stdout, stderr } = harmflow('gc', '--dry-run');

    expect(stderr).toBe('');
    expect(code).toBe(EXIT.ok);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      new RegExp(`^kept {10}${dirty.id} +${SIZE}  dirty-task  1 uncommitted change \\(git status\\)$`),
    );
    expect(lines[1]).toMatch(new RegExp(`^would remove  ${clean.id} +${SIZE}  clean-task$`));
    expect(lines[2]).toMatch(
      new RegExp(`^would reclaim ${SIZE} from 1 worktree; 1 kept; 1 younger than the retention \\(7d\\)$`),
    );
    expect([readdirSync(bench.home.worktrees).sort(), git(bench.repo, 'worktree', 'list')]).toEqual(before);
  });

  it('removes the clean expired worktree; ls and show then say so', () => {
    const { code, stdout } = harmflow('gc');
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(new RegExp(`^removed {7}${clean.id} +${SIZE}  clean-task$`, 'm'));
    expect(stdout).toMatch(/^reclaimed .* from 1 worktree; 1 kept; 1 younger than the retention \(7d\)$/m);
    expect(existsSync(clean.worktree)).toBe(false);
    expect(existsSync(dirty.worktree)).toBe(true);
    expect(existsSync(young.worktree)).toBe(true);

    const ls = harmflow('ls', '--all');
    expect(ls.code).toBe(EXIT.ok);
    const [header, ...rows] = ls.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID +STATE +ATT +TURNS +PR +OWNER +HARNESS +DISK +CREATED +TASK$/);
    const diskColumn = header?.indexOf('DISK') ?? -1;
    const row = (record: ExecutionRecord) => rows.find((line) => line.startsWith(record.id))?.slice(diskColumn);
    expect(row(clean)).toMatch(
      new RegExp(`^${SIZE} \\(wt gone\\) +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  clean-task$`),
    );
    expect(row(dirty)).toMatch(new RegExp(`^${SIZE} +\\d{4}-`));

    const json = JSON.parse(harmflow('ls', '--all', '--json').stdout) as { id: string; disk: unknown }[];
    expect(json.find((entry) => entry.id === clean.id)?.disk).toEqual({
      worktreeBytes: 0,
      runBytes: expect.any(Number),
      worktreeRemovedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const show = harmflow('show', clean.id);
    expect(show.stdout).toMatch(
      new RegExp(
        `^worktree  ${clean.worktree} — removed by gc on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\(the branch keeps its commits\\)$`,
        'm',
      ),
    );
    expect(harmflow('show', dirty.id).stdout).toMatch(new RegExp(`^worktree  ${dirty.worktree}  \\(${SIZE}\\)$`, 'm'));
  });

  it('takes --retention and --json, and refuses a retention that is not a duration', () => {
    const report = JSON.parse(harmflow('gc', '--dry-run', '--retention', '0', '--json').stdout) as {
      entries: { taskName: string; action: string }[];
      notExpired: number;
    };
    expect(report.entries.map((entry) => [entry.taskName, entry.action])).toEqual([
      ['dirty-task', 'kept'],
      ['clean-task', 'would-remove'],
      ['young-task', 'would-remove'],
    ]);
    expect(report.notExpired).toBe(0);

    const bad = harmflow('gc', '--retention', 'soon');
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toBe('harmflow: --retention: not a duration (examples: 7d, 36h, 0): soon\n');
  });
});
