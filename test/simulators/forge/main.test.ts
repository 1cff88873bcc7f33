/**
 * The fake forge `gh`, through bin/forge/gh: pull requests are recorded in pulls.json, a second open
 * one for the same head is refused with gh's message, list/view answer with gh's shapes, concurrent
 * creates never collide, and a missing store directory is exit 4.
 */
import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { FORGE_BIN, git, makeSandbox, requireBuilt, runCli, type Sandbox } from '../helpers.js';

const GH = join(FORGE_BIN, 'gh');
let sandbox: Sandbox;

beforeAll(async () => {
  requireBuilt();
  sandbox = await makeSandbox();
});
afterAll(async () => {
  await sandbox?.cleanup();
});

const gh = (args: string[], env: Record<string, string> = { HARMFLOW_FORGE_DIR: sandbox.forgeDir }) =>
  runCli(GH, args, { cwd: sandbox.work, env });

test('create records the pull request and prints its URL; a second one for the same head is refused', async () => {
  const created = await gh(['pr', 'create', '--title', 'Add ISO week parsing', '--body', 'Adds it.']);
  expect(created).toMatchObject({ code: 0, stdout: 'https://forge.example/work/pull/1\n' });
  const pulls = JSON.parse(await readFile(join(sandbox.forgeDir, 'pulls.json'), 'utf8'));
  expect(pulls).toEqual([
    {
      number: 1,
      url: 'https://forge.example/work/pull/1',
      title: 'Add ISO week parsing',
      body: 'Adds it.',
      head: 'feature',
      base: 'main',
      state: 'open',
      repo: 'work',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    },
  ]);
  const again = await gh(['pr', 'create', '-t', 'Again', '-b', '']);
  expect(again.code).toBe(1);
  expect(again.stderr).toBe(
    'a pull request for branch "feature" into branch "main" already exists:\nhttps://forge.example/work/pull/1\n',
  );
});

test('list and view: JSON with gh field names (keys sorted), or the plain table', async () => {
  const [json, other, table, view, plain, missing] = await Promise.all([
    gh(['pr', 'list', '--head', 'feature', '--json', 'url,number,headRefName,state']),
    gh(['pr', 'list', '--head', 'other', '--json', 'number']),
    gh(['pr', 'list']),
    gh(['pr', 'view', '1', '--json', 'title,body,baseRefName']),
    gh(['pr', 'view']),
    gh(['pr', 'view', '9']),
  ]);
  expect(JSON.parse(json.stdout)).toEqual([
    { headRefName: 'feature', number: 1, state: 'OPEN', url: 'https://forge.example/work/pull/1' },
  ]);
  expect(Object.keys(JSON.parse(json.stdout)[0])).toEqual(['headRefName', 'number', 'state', 'url']);
  expect(JSON.parse(other.stdout)).toEqual([]);
  expect(table.stdout).toMatch(/^1\tAdd ISO week parsing\tfeature\tOPEN\t\S+Z\n$/);
  expect(JSON.parse(view.stdout)).toEqual({ baseRefName: 'main', body: 'Adds it.', title: 'Add ISO week parsing' });
  expect(plain.stdout).toContain('url:\thttps://forge.example/work/pull/1\n');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/Could not resolve to a PullRequest with the number of 9/);
});

test('argv outside the subset is refused with gh-like messages, exit 1', async () => {
  const [unknownFlag, field, noBody, otherGroup] = await Promise.all([
    gh(['pr', 'list', '--bogus']),
    gh(['pr', 'list', '--json', 'number,nope']),
    gh(['pr', 'create', '--title', 'T']),
    gh(['issue', 'list']),
  ]);
  expect(unknownFlag).toMatchObject({ code: 1, stderr: 'unknown flag: --bogus\n' });
  expect(field.code).toBe(1);
  expect(field.stderr).toMatch(/^Unknown JSON field: "nope"\nAvailable fields:\n {2}baseRefName\n/);
  expect(noBody).toMatchObject({ code: 1, stderr: expect.stringMatching(/must provide `--title` and `--body`/) });
  expect(otherGroup.code).toBe(1);
});

test('concurrent creates on different heads get distinct numbers', async () => {
  const heads = ['a', 'b', 'c', 'd'];
  const runs = await Promise.all(
    heads.map((head) => gh(['pr', 'create', '--title', head, '--body', '', '--head', head, '--base', 'main'])),
  );
  expect(runs.map((run) => run.code)).toEqual([0, 0, 0, 0]);
  const numbers = runs.map((run) => Number(run.stdout.trim().split('/').pop()));
  expect([...numbers].sort()).toEqual([2, 3, 4, 5]);
  const pulls = JSON.parse(await readFile(join(sandbox.forgeDir, 'pulls.json'), 'utf8')) as { number: number }[];
  expect(pulls.map((pr) => pr.number).sort()).toEqual([1, 2, 3, 4, 5]);
});

test('works through a symlink, and from a worktree names the main repository', async () => {
  const link = join(sandbox.dir, 'gh-link');
  await symlink(GH, link);
  const worktree = join(sandbox.dir, 'wt');
  git(sandbox.work, 'worktree', 'add', '--quiet', '-b', 'other', worktree);
  const run = await runCli(link, ['pr', 'create', '--title', 'From a worktree', '--body', ''], {
    cwd: worktree,
    env: { HARMFLOW_FORGE_DIR: sandbox.forgeDir },
  });
  expect(run).toMatchObject({ code: 0, stdout: 'https://forge.example/work/pull/6\n' });
});

test('HARMFLOW_FORGE_DIR unset: one stderr line, exit 4', async () => {
  const run = await runCli(GH, ['pr', 'list'], { cwd: sandbox.work, env: { HARMFLOW_FORGE_DIR: '' } });
  expect(run.code).toBe(4);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(/HARMFLOW_FORGE_DIR is not set/);
});
