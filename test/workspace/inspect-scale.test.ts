import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectWorkspace } from '../../src/workspace/inspect.js';
import { createWorktree } from '../../src/workspace/worktree.js';
import { commitAll, sh, tempDirs, write } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A git fast-import stream: a first commit of `files` files, then one commit per changed file. */
function history(files: number, commits: number): string {
  const out: string[] = [];
  for (let n = 1; n <= commits; n++) {
    const subject = `commit ${n}`;
    out.push(`commit refs/heads/main\nmark :${n}\ncommitter T <t@example.com> ${1_700_000_000 + n} +0000\n`);
    out.push(`data ${subject.length}\n${subject}\n${n > 1 ? `from :${n - 1}\n` : ''}`);
    const changed = n === 1 ? Array.from({ length: files }, (_, f) => f) : [n % files];
    for (const f of changed) {
      const body = `file ${f} version ${n}\n`;
      out.push(`M 100644 inline src/d${Math.floor(f / 100)}/f${f}.txt\ndata ${body.length}\n${body}\n`);
    }
  }
  return out.join('');
}

describe('inspectWorkspace at scale', () => {
  it('inspects a 10,000-file, 1,000-commit repository correctly', async () => {
    const repo = join(await dirs.make(), 'big');
    sh(await dirs.make(), 'init', '-q', '-b', 'main', repo);
    execFileSync('git', ['fast-import', '--quiet'], { cwd: repo, input: history(10_000, 1000) });
    const baseSha = sh(repo, 'rev-parse', 'main');
    await dirs.remote(repo, 'origin');
    const worktree = join(await dirs.make(), 'wt');
    await createWorktree({ repoRoot: repo, baseSha, branch: 'harmflow/big', path: worktree });
    await write(worktree, 'src/d5/f500.txt', 'edited\n');
    const commit = commitAll(worktree, 'agent work');
    sh(worktree, 'push', '-q', 'origin', 'harmflow/big');
    await write(worktree, 'src/d7/f700.txt', 'uncommitted\n');
    await write(worktree, 'new dir/untracked file.txt', 'new\n');

    const snapshot = await inspectWorkspace({ worktree, baseSha, branch: 'harmflow/big' });

    expect(snapshot.head).toBe(commit);
    expect([...snapshot.changedFiles].sort()).toEqual(['new dir/untracked file.txt', 'src/d7/f700.txt']);
    expect(snapshot.commits).toEqual([{ sha: commit, subject: 'agent work' }]);
    expect(snapshot.remote).toEqual({ remote: 'origin', branch: 'harmflow/big', sha: commit, source: 'ls-remote' });
    // How fast: bench/failover.mjs measures it (BENCHMARKS.md); tests check only what it finds.
  }, 30_000);
});
