/**
 * The OS sandbox of an execution's harnesses (proc/sandbox.ts, docs/gates.md "The sandbox"): whether
 * they run in one — decided once per drive from the task's `sandbox` and what the host allows, and
 * said in the timeline when they do not — and, for each turn, what the sandbox leaves the harness.
 *
 * Writable: the worktree, the harness's private home, what a commit and a push write in git
 * directories — the `objects`, `refs` and `logs` of the repository's git directory and of its
 * remotes that are paths on this machine (a push writes there, as it would across the network), and
 * the worktree's own admin folder (`.git/worktrees/<id>`: its HEAD, index and logs) — the fake
 * forge's folder when the harness's environment names one (it stands for a forge across the
 * network), the folders of the turn's package and build caches (each tool's, and the execution's
 * own; never the cache root, whose bookkeeping stays out of reach), and, when the gate runner runs inside (a hooked harness with gates on), the two files it
 * appends to: the execution's events.jsonl and the attempt's gate-seen.jsonl. The rest of each git
 * directory stays read-only — its `config`, `hooks`, and the room for a `commondir` file, any of
 * which would make git run a command of the agent's outside the sandbox (HarmFlow's `git status`
 * after the attempt, the user's next commit) — and so do the admin folder's `commondir` and
 * `gitdir`, which say where its repository is, the worktree's `.git` file, and the hooks' settings
 * HarmFlow wrote into the home. Read-only: the attempt's folder (its gates file, the hooks' files,
 * raw logs, pgid) and the execution's context.json, which the handoff prompt points the harness at;
 * the rest of the state directory is out of sight.
 */
import { mkdirSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HomePaths } from '../core/home.js';
import type { SandboxChoice } from '../core/task.js';
import { SEEN_FILE } from '../gates/attempt-file.js';
import { isWithin, PRIVATE_TMP, type SandboxPolicy, type SandboxTools } from '../proc/sandbox.js';
import { probeSandbox } from '../proc/sandbox-probe.js';
import { git } from '../workspace/git.js';
import type { Recorder } from './recorder.js';

/** This package: the simulator, the gate runner and the fake forge run from it. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Git answers these in milliseconds; 10 s is a disk or a lock gone wrong. */
const GIT_TIMEOUT_MS = 10_000;

/** The warning an execution whose task says `sandbox: none` records at its first drive. */
export const SANDBOX_OFF =
  "sandbox: none — the harness runs with the user's full access; only the gates stand between it and the machine";

/** How an execution's turns are sandboxed; made once per drive by `executionSandbox`. */
export interface ExecutionSandbox {
  readonly tools: SandboxTools;
  /** HarmFlow's state directory: hidden, but for what a turn's binds bring back. */
  readonly stateDir: string;
  readonly eventsFile: string;
  readonly contextFile: string;
  /** The repository's git directory (`git rev-parse --git-common-dir`); absent when git could not say. */
  readonly gitDir?: string;
  /** The worktree's admin folder in it (`git rev-parse --git-dir`: `.git/worktrees/<id>`); absent when git could not say. */
  readonly worktreeGitDir?: string;
  /** The git directories of the repository's remotes that are paths on this machine. */
  readonly remoteGitDirs: readonly string[];
}

export interface ExecutionSandboxInput {
  /** The task's `sandbox` (absent: `bwrap`). */
  readonly choice: SandboxChoice | undefined;
  readonly execution: string;
  readonly worktree: string;
  readonly home: HomePaths;
  /** HarmFlow's host environment: bubblewrap is looked up on its PATH. */
  readonly hostEnv: NodeJS.ProcessEnv;
  readonly recorder: Recorder;
  /**
   * Whether no attempt of the execution has started yet: only then is a missing sandbox said in the
   * timeline, so an execution carried on after a restart or reopened says it once.
   */
  readonly firstDrive: boolean;
}

/**
 * The sandbox the execution's turns run in, or undefined when they run without one: the task says
 * `none`, or the host cannot make one (a `warning` at the execution's first drive says which, and how
 * to install bubblewrap).
 */
export async function executionSandbox(input: ExecutionSandboxInput): Promise<ExecutionSandbox | undefined> {
  const without = (message: string): undefined => {
    if (input.firstDrive) input.recorder.executor('warning', { message });
  };
  if (input.choice === 'none') return without(SANDBOX_OFF);
  const probe = await probeSandbox(input.hostEnv.PATH ?? '');
  if (!probe.available) {
    return without(
      `sandbox: off — ${probe.reason}: the harness runs with the user's full access, only the gates stand between it and the machine`,
    );
  }
  // One line each: the repository's git directory, then the worktree's own (its admin folder).
  const dirs = await gitOutput(input.worktree, [
    'rev-parse',
    '--path-format=absolute',
    '--git-common-dir',
    '--git-dir',
  ]);
  const [gitDir, worktreeGitDir] = dirs?.split('\n') ?? [];
  if (gitDir === undefined) {
    input.recorder.executor('warning', {
      message: `sandbox: git could not name the repository's git directory from ${input.worktree}; commits will fail inside the sandbox`,
    });
  }
  const remoteGitDirs = await localRemoteGitDirs(input.worktree);
  // Only a folder that exists can be bound writable, and git makes `logs/` on the first ref it logs
  // (a bare mirror has none yet): made here, from outside, as git itself would make it.
  for (const dir of [...(gitDir !== undefined ? [gitDir] : []), ...remoteGitDirs]) {
    for (const part of GIT_WRITES) mkdirSync(join(dir, part), { recursive: true });
  }
  return {
    tools: probe.tools,
    stateDir: input.home.root,
    eventsFile: input.home.eventsFile(input.execution),
    contextFile: input.home.contextFile(input.execution),
    ...(gitDir !== undefined && { gitDir }),
    ...(worktreeGitDir !== undefined && worktreeGitDir !== gitDir && { worktreeGitDir }),
    remoteGitDirs,
  };
}

/** What a commit and a push write in a git directory: the rest of it (config, hooks) stays read-only. */
const GIT_WRITES = ['objects', 'refs', 'logs'];

/** The files of a worktree's admin folder that say where its repository is. */
const ADMIN_LINKS = ['commondir', 'gitdir'];

/** One turn of an attempt, as its sandbox needs to know it. */
export interface SandboxTurn {
  readonly worktree: string;
  readonly attemptDir: string;
  /** The harness's private home (an earlier attempt's when it resumes that attempt's session). */
  readonly homeDir: string;
  /** True when the gate runner runs inside: it appends to events.jsonl and to the attempt's SEEN_FILE. */
  readonly gateRunner: boolean;
  /**
   * The harness's environment: its PATH, `HARMFLOW_FORGE_DIR` when it names a fake forge, and
   * `SSH_AUTH_SOCK` when the task passes an ssh agent's socket on.
   */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The hooks' settings HarmFlow wrote into the private home (Codex's hooks.json, Gemini's
   * settings.json, OpenCode's plugin), absolute: read-only, so the agent cannot take its gates off.
   */
  readonly hookFiles: readonly string[];
  /** The files the command starts from or reads: its executable, a simulator's scenario. */
  readonly reads: readonly string[];
  /** The folders of the turn's package and build caches (CachePlan.writable): bound writable. */
  readonly caches: readonly string[];
}

/** What the sandbox of `turn` leaves writable and brings back read-only. */
export function turnPolicy(sandbox: ExecutionSandbox, turn: SandboxTurn): SandboxPolicy {
  const gitDirs = [...(sandbox.gitDir !== undefined ? [sandbox.gitDir] : []), ...sandbox.remoteGitDirs];
  const admin = sandbox.worktreeGitDir;
  const forge = turn.env.HARMFLOW_FORGE_DIR;
  const writable = [
    turn.worktree,
    turn.homeDir,
    ...gitDirs.flatMap((dir) => GIT_WRITES.map((part) => join(dir, part))),
    ...(admin !== undefined ? [admin] : []),
    ...(forge !== undefined && isAbsolute(forge) ? [forge] : []),
    ...turn.caches,
    // Bound writable alone: the attempt's folder stays read-only, so no name in it can be swapped for
    // a link that HarmFlow, outside the sandbox, would then write through.
    ...(turn.gateRunner ? [sandbox.eventsFile, join(turn.attemptDir, SEEN_FILE)] : []),
  ];
  // What the private /tmp would cover and the command needs: never anything of the state directory.
  // An ssh agent's socket (OpenSSH makes it under /tmp) is connected to, which a read-only bind allows.
  const reads = [
    ...(turn.env.PATH ?? '').split(delimiter),
    ...(turn.env.SSH_AUTH_SOCK !== undefined ? [turn.env.SSH_AUTH_SOCK] : []),
    ...turn.reads,
    PACKAGE_ROOT,
    dirname(process.execPath),
  ].filter((path) => isAbsolute(path) && isWithin(path, PRIVATE_TMP) && !isWithin(path, sandbox.stateDir));
  const readOnly = [
    ...reads,
    sandbox.contextFile,
    turn.attemptDir,
    ...turn.hookFiles,
    join(turn.worktree, '.git'),
    // Each git directory whole, so that one under the private /tmp is there; its writable parts above.
    ...gitDirs,
    ...(admin !== undefined ? ADMIN_LINKS.map((file) => join(admin, file)) : []),
  ];
  return { hidden: [sandbox.stateDir], writable, readOnly };
}

/**
 * The git directories of the repository's remotes whose URL is a path on this machine (absolute, or
 * `file://`): a push writes there. Network remotes need nothing: the sandbox shares the network.
 */
async function localRemoteGitDirs(worktree: string): Promise<string[]> {
  const urls = await gitOutput(worktree, ['config', '--get-regexp', '^remote\\..*\\.(push)?url$']);
  const paths = new Set<string>();
  for (const line of (urls ?? '').split('\n')) {
    const url = line.slice(line.indexOf(' ') + 1);
    if (url.startsWith('/')) paths.add(url);
    else if (url.startsWith('file:///')) paths.add(decodeURIComponent(url.slice('file://'.length)));
  }
  const dirs = await Promise.all(
    [...paths].map(async (path) => {
      const dir = await gitOutput(path, ['rev-parse', '--path-format=absolute', '--git-dir']);
      // Only the remote's own: a path that is no repository would answer with the one around it.
      return dir !== undefined && isWithin(dir, path) ? [dir] : [];
    }),
  );
  return dirs.flat();
}

/** Git's trimmed stdout, or undefined when it failed. */
async function gitOutput(cwd: string, args: readonly string[]): Promise<string | undefined> {
  const result = await git(cwd, args, { timeoutMs: GIT_TIMEOUT_MS });
  const out = result.stdout.trim();
  return result.exitCode === 0 && out !== '' ? out : undefined;
}
