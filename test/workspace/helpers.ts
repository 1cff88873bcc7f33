/** Fixtures for the workspace tests: real temporary repositories, created and removed per test. */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** git's environment in fixtures: a fixed identity, no user or system config. */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Runs git in `cwd` and returns its trimmed stdout; throws on failure. */
export function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Writes a file, creating its directories. */
export async function write(root: string, path: string, content: string): Promise<void> {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

/** Commits everything in `cwd` and returns the new commit's sha. */
export function commitAll(cwd: string, subject: string): string {
  sh(cwd, 'add', '-A');
  sh(cwd, 'commit', '-q', '-m', subject);
  return sh(cwd, 'rev-parse', 'HEAD');
}

/** Temporary directories, all removed by `cleanup()` (call it in afterEach). */
export function tempDirs(): {
  make(): Promise<string>;
  /** A repository on `main` with one commit (README.md), in a fresh directory. */
  repo(): Promise<string>;
  /** A bare repository added to `repo` as remote `name`. */
  remote(repo: string, name: string): Promise<string>;
  cleanup(): Promise<void>;
} {
  const made: string[] = [];
  const make = async () => {
    const path = await mkdtemp(join(tmpdir(), 'harmflow-ws-'));
    made.push(path);
    return path;
  };
  return {
    make,
    async repo() {
      const path = join(await make(), 'repo');
      sh(tmpdir(), 'init', '-q', '-b', 'main', path);
      await write(path, 'README.md', '# test\n');
      commitAll(path, 'initial');
      return path;
    },
    async remote(repo, name) {
      const path = join(await make(), `${name}.git`);
      sh(tmpdir(), 'init', '-q', '--bare', '-b', 'main', path);
      sh(repo, 'remote', 'add', name, path);
      return path;
    },
    async cleanup() {
      await Promise.all(made.splice(0).map((path) => rm(path, { recursive: true, force: true })));
    },
  };
}
