/**
 * The OS sandbox around a harness, end to end with the real bubblewrap: the simulator, playing Claude
 * Code through the real engine, runs shell commands that try to get out — with the gates off, so
 * nothing but the sandbox stands in the way — and the machine, the state directory and the gates
 * file are the same afterwards; the normal work (edit, test, commit, push, pull request) still gets
 * done sandboxed; and an execution says in its timeline when it runs without a sandbox, and why.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import { executionSandbox, SANDBOX_OFF } from '../../src/execution/attempt-sandbox.js';
import type { Recorder } from '../../src/execution/recorder.js';
import { readPulls } from '../../src/simulators/forge/store.js';
import { bwrapTools } from '../proc/bwrap.js';
import { type Bench, GIT_IDENTITY, git, makeBench, simulated } from './fixture.js';
import { outcomes, run, sandboxedFlags } from './sandbox-fixture.js';

const tools = await bwrapTools();

/** Every gate off: what stops the agent below is the sandbox alone. */
const NO_GATES = { operations: false, workspace: false, commands: false, nothingTwice: false };

let bench: Bench;
/** Files the escapes would make on the host; removed after each test whatever it found. */
const escapes: string[] = [];
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  for (const path of escapes.splice(0)) rmSync(path, { recursive: true, force: true });
  await bench.cleanup();
});

function events(id: string): EventRecord[] {
  return readEvents(bench.home.eventsFile(id));
}

/**
 * Runs `steps` as the simulator playing `harness` with `gates`, in the sandbox; the execution and its
 * records, once its one attempt is seen to have run sandboxed.
 */
async function sandboxedRun(
  name: string,
  steps: object[],
  gates: object,
  harness: 'claude-code' | 'codex' = 'claude-code',
) {
  const scenario = bench.scenario(name, { steps });
  const result = await bench.run(bench.task({ harness: simulated(harness, scenario), gates }));
  const records = events(result.id);
  expect(sandboxedFlags(records)).toEqual([true]);
  return { result, records };
}

describe.skipIf(tools === undefined)('a harness in the sandbox, gates off', () => {
  it('cannot write outside its worktree, reach the state directory, or push anywhere but to its own remotes', async () => {
    const tag = randomBytes(4).toString('hex');
    const opt = `/opt/harmflow-escape-${tag}`;
    const userHome = join(homedir(), `harmflow-escape-${tag}`);
    const viaLink = join(homedir(), `harmflow-link-escape-${tag}`);
    escapes.push(opt, userHome, viaLink);
    // Another execution's run directory, and a bare repository that is no remote of this one.
    const other = bench.home.runDir('01otherexecution');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'events.jsonl'), '{"another":"execution"}\n');
    const stranger = join(bench.dir, 'stranger.git');
    git(bench.dir, 'clone', '--quiet', '--bare', bench.origin, stranger);
    const strangerMain = git(stranger, 'rev-parse', 'main');
    const originMain = git(bench.origin, 'rev-parse', 'main');
    const database = readFileSync(bench.home.database);
    const originConfig = readFileSync(join(bench.origin, 'config'), 'utf8');
    const repoConfig = readFileSync(join(bench.repo, '.git', 'config'), 'utf8');

    const { result, records } = await sandboxedRun(
      'escape',
      [
        run('opt', `echo x > ${opt}`),
        run('user-home', `echo x > ${userHome}`),
        run('symlink', `ln -s ${homedir()} out && echo x > out/harmflow-link-escape-${tag}`),
        run('database', `rm -r ${bench.home.database}`),
        run('other-execution', `rm -r ${other}`),
        run('state-listing', `ls ${bench.home.runs} | grep -q 01otherexecution`),
        run('push-stranger', `git commit --allow-empty -qm rewrite && git push --force ${stranger} HEAD:main`),
        run('remote-hook', `echo 'echo pwned' > ${join(bench.origin, 'hooks', 'post-receive')}`),
        run('remote-config', `git config -f ${join(bench.origin, 'config')} core.hooksPath /tmp`),
        run('repo-config', 'git config core.fsmonitor "echo pwned"'),
        run('repo-hook', `echo 'echo pwned' > ${join(bench.repo, '.git', 'hooks', 'pre-commit')}`),
        run('dot-git', 'rm -f .git'),
        // A commondir names another repository, whose config (a core.fsmonitor) git would then run outside.
        run('repo-commondir', `echo ${bench.dir} > ${join(bench.repo, '.git', 'commondir')}`),
        run('admin-commondir', `echo ${bench.dir} > "$(git rev-parse --git-dir)/commondir"`),
        run('remote-commondir', `echo ${bench.dir} > ${join(bench.origin, 'commondir')}`),
        run('commit', 'echo work > work.txt && git add work.txt && git commit -qm "Add work"'),
        // A push of the execution's branch goes through, as it would across the network.
        run('push-branch', 'git push -q origin HEAD'),
        // One to the branch a local remote's HEAD names does not: git locks HEAD in the remote's root,
        // which stays read-only. Across the network only the gates would stop it.
        run('push-origin', 'git push -q --force origin HEAD:main'),
        { end: 'complete' },
      ],
      NO_GATES,
    );

    expect(result.state).toBe('succeeded');
    expect(outcomes(records)).toEqual({
      opt: false,
      'user-home': false,
      symlink: false,
      database: false,
      'other-execution': false,
      'state-listing': false,
      'push-stranger': false,
      'remote-hook': false,
      'remote-config': false,
      'repo-config': false,
      'repo-hook': false,
      'dot-git': false,
      'repo-commondir': false,
      'admin-commondir': false,
      'remote-commondir': false,
      commit: true,
      'push-branch': true,
      'push-origin': false,
    });
    for (const path of [opt, userHome, viaLink]) expect(existsSync(path)).toBe(false);
    expect(readFileSync(bench.home.database)).toEqual(database);
    expect(readFileSync(join(other, 'events.jsonl'), 'utf8')).toBe('{"another":"execution"}\n');
    expect(git(stranger, 'rev-parse', 'main')).toBe(strangerMain);
    expect(existsSync(join(bench.origin, 'hooks', 'post-receive'))).toBe(false);
    expect(readFileSync(join(bench.origin, 'config'), 'utf8')).toBe(originConfig);
    expect(readFileSync(join(bench.repo, '.git', 'config'), 'utf8')).toBe(repoConfig);
    expect(existsSync(join(bench.repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(bench.repo, '.git', 'commondir'))).toBe(false);
    expect(existsSync(join(bench.origin, 'commondir'))).toBe(false);
    expect(git(result.worktree, 'rev-parse', '--path-format=absolute', '--git-common-dir')).toBe(
      join(bench.repo, '.git'),
    );
    // The commit inside the sandbox is on the branch and pushed; origin's main is as it was.
    expect(git(result.worktree, 'log', '-1', '--format=%s')).toBe('Add work');
    const head = git(result.worktree, 'rev-parse', 'HEAD');
    expect(git(bench.origin, 'rev-parse', `refs/heads/${result.branch}`)).toBe(head);
    expect(git(bench.origin, 'rev-parse', 'main')).toBe(originMain);
  });

  it('does the normal work: edits, tests, commits, pushes to its remote and opens a pull request', async () => {
    const { result, records } = await sandboxedRun(
      'work',
      [
        { write: { path: 'src/a.js', content: 'export const a = 1;\n' } },
        { run: 'npm test' },
        { commit: 'Add a' },
        { push: {} },
        { pr: { title: 'Add a' } },
        { end: 'complete' },
      ],
      NO_GATES,
    );

    expect(result.state).toBe('succeeded');
    expect(records.filter((record) => record.type === 'tool.result' && !record.data.ok)).toEqual([]);
    const head = git(result.worktree, 'rev-parse', 'HEAD');
    expect(git(bench.origin, 'rev-parse', `refs/heads/${result.branch}`)).toBe(head);
    expect((await readPulls(bench.forgeDir)).map((pull) => pull.head)).toEqual([result.branch]);
  });
});

describe.skipIf(tools === undefined)('the git directories a turn writes', () => {
  it('are made before the sandbox where git has not made them yet: a bare remote or mirror without logs/', async () => {
    expect(existsSync(join(bench.origin, 'logs'))).toBe(false);
    const worktree = join(bench.dir, 'tree');
    git(bench.repo, 'worktree', 'add', '--quiet', '-b', 'harmflow/t', worktree);
    const recorder = { executor: () => {} } as unknown as Recorder;
    const input = { choice: 'bwrap', execution: 'e1', worktree, home: bench.home, hostEnv: process.env } as const;
    const sandbox = await executionSandbox({ ...input, recorder, firstDrive: true });

    expect(sandbox?.remoteGitDirs).toEqual([bench.origin]);
    // Only a folder that exists can be bound writable: git would make this one at its first logged ref.
    expect(existsSync(join(bench.origin, 'logs'))).toBe(true);
  });
});

describe.skipIf(tools === undefined)('a harness in the sandbox, gates on', () => {
  it('the gate runner inside records to the log; the attempt folder, its gates file and pgid cannot be changed', async () => {
    // The operations gate alone: the hooks run the gate runner, and nothing is refused.
    const gates = { operations: true, workspace: false, commands: false, nothingTwice: false };
    const { result, records } = await sandboxedRun(
      'gates',
      [
        run('gates-rm', 'rm -f "$HARMFLOW_GATE_DIR/gates.json"'),
        run('gates-write', 'chmod u+w "$HARMFLOW_GATE_DIR/gates.json"; echo {} > "$HARMFLOW_GATE_DIR/gates.json"'),
        run('gates-mv', 'mv "$HARMFLOW_GATE_DIR/gates.json" "$HARMFLOW_GATE_DIR/old.json"'),
        run('pgid', 'echo 1 > "$HARMFLOW_GATE_DIR/pgid"'),
        run('planted', 'echo x > "$HARMFLOW_GATE_DIR/planted"'),
        run('seen-swap', `ln -sf ${homedir()}/.profile "$HARMFLOW_GATE_DIR/gate-seen.jsonl"`),
        { commit: 'Add nothing' },
        { end: 'complete' },
      ],
      gates,
    );

    expect(outcomes(records)).toMatchObject({
      'gates-rm': false,
      'gates-write': false,
      'gates-mv': false,
      pgid: false,
      planted: false,
      'seen-swap': false,
    });
    const gatesFile = JSON.parse(readFileSync(join(bench.home.attemptDir(result.id, 1), 'gates.json'), 'utf8'));
    expect(gatesFile).toMatchObject({ execution: result.id, attempt: 1 });
    expect(readFileSync(join(bench.home.attemptDir(result.id, 1), 'pgid'), 'utf8')).not.toBe('1\n');
    // The commit's operation was recorded by the gate runner, from inside the sandbox.
    expect(records.filter((record) => record.type === 'operation' && record.source === 'gate')).not.toEqual([]);
  });
});

describe.skipIf(tools === undefined)('a harness in the sandbox, its hooks in its private home', () => {
  it('cannot remove or rewrite the hooks settings HarmFlow wrote there (Codex’s hooks.json)', async () => {
    const calls = {
      rm: 'rm -f "$CODEX_HOME/hooks.json"',
      write: 'echo "{}" > "$CODEX_HOME/hooks.json"',
      mv: 'mv "$CODEX_HOME/hooks.json" "$CODEX_HOME/hooks.old"',
      home: 'echo x > "$CODEX_HOME/notes.txt"',
    };
    // The operations gate alone: the hooks run, and nothing is refused by a gate.
    const gates = { operations: true, workspace: false, commands: false, nothingTwice: false };
    const steps = [...Object.values(calls).map((command) => ({ run: command })), { end: 'complete' }];
    const { result, records } = await sandboxedRun('hooks', steps, gates, 'codex');

    // The home stays writable (the CLI keeps its sessions there); the hooks file in it does not.
    expect(outcomes(records)).toEqual({
      [calls.rm]: false,
      [calls.write]: false,
      [calls.mv]: false,
      [calls.home]: true,
    });
    const hooks = readFileSync(join(bench.home.attemptDir(result.id, 1), 'home', 'codex-home', 'hooks.json'), 'utf8');
    expect(hooks).toContain('--sha256');
  });
});

describe('without a sandbox', () => {
  it('`sandbox: none` says so in the timeline before the attempt, which records it ran unsandboxed', async () => {
    const scenario = bench.scenario('none', { steps: [{ say: 'hello' }, { end: 'complete' }] });
    const task = bench.task({ harness: simulated('claude-code', scenario), sandbox: 'none' });

    const result = await bench.run(task);

    const records = events(result.id);
    const warning = records.findIndex((record) => record.type === 'warning' && record.data.message === SANDBOX_OFF);
    expect(warning).toBeGreaterThanOrEqual(0);
    expect(warning).toBeLessThan(records.findIndex((record) => record.type === 'attempt.started'));
    expect(sandboxedFlags(records)).toEqual([false]);
  });

  it('where bubblewrap is not installed: one warning naming why and how to install it, then the work runs', async () => {
    const emptyBin = join(bench.dir, 'empty-bin');
    mkdirSync(emptyBin);
    const scenario = bench.scenario('missing', {
      steps: [{ write: { path: 'a.txt', content: 'a\n' } }, { end: 'complete' }],
    });
    const task = bench.task({ harness: simulated('claude-code', scenario), gates: NO_GATES });

    const result = await bench.run(task, { hostEnv: { ...GIT_IDENTITY, PATH: emptyBin } });

    expect(result.state).toBe('succeeded');
    const records = events(result.id);
    const warnings = records.flatMap((record) =>
      record.type === 'warning' && record.data.message.startsWith('sandbox:') ? [record.data.message] : [],
    );
    expect(warnings).toEqual([expect.stringMatching(/bubblewrap is not installed.*apt-get install bubblewrap/)]);
    expect(sandboxedFlags(records)).toEqual([false]);
  });
});
