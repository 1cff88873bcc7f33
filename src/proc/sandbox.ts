/**
 * The command line that runs a command inside bubblewrap (`bwrap`), HarmFlow's OS sandbox for
 * harness processes (ARCHITECTURE.md, "Agents run sandboxed where the host allows it"). Pure: builds
 * an argv and starts nothing; `spawnProcess` starts it like any command, and sandbox-probe.ts says
 * whether bubblewrap works on this host at all.
 *
 * Inside: the whole file system read-only; a fresh /dev; a private, empty /tmp; the `hidden`
 * directories (HarmFlow's state directory) replaced by empty ones; then the `readOnly` and
 * `writable` paths bound back, parents before children, so a file kept read-only inside a writable
 * folder stays read-only, and whatever the private /tmp or a hidden directory covers is seen only
 * where a bind brings it back. Its own PID namespace and /proc: no process outside is seen,
 * signalled or entered (a /proc/<pid>/root of a process outside would be the host's whole file
 * system, writable). No capability is kept, not even as root: with them root remounts `/` writable.
 * The network is the host's: the CLIs need their APIs.
 *
 * Signals: the command stays in the caller's process group (no new session), so a signal to the
 * group reaches everything inside. bwrap itself ignores SIGINT and SIGTERM (`env --ignore-signal`):
 * it would otherwise die at once and leave the harness, still saving, to be killed with the group;
 * the command gets both back at their default (`env --default-signal`) before it starts, as Node's
 * spawn gives them. bwrap exits with the command's exit code, and with 128 + N when signal N ended it.
 * No `--die-with-parent`: a harness outlives a HarmFlow killed with SIGKILL as it does unsandboxed,
 * and the next start kills its group (attempts/<n>/pgid); that flag would make only sandboxed
 * harnesses die with their driver, and a restart's recovery find nothing to recover.
 */
import { resolve, sep } from 'node:path';

/** The private /tmp every sandbox gets. */
export const PRIVATE_TMP = '/tmp';

/** The signals bwrap ignores and the command gets back: those an interrupt sends (spawn.ts). */
const FORWARDED_SIGNALS = 'INT,TERM';

/** The two executables a sandboxed command line starts, absolute (sandbox-probe.ts finds them). */
export interface SandboxTools {
  readonly bwrap: string;
  /** GNU env (coreutils ≥ 8.31, for `--ignore-signal` and `--default-signal`). */
  readonly env: string;
}

/** What one sandboxed process may reach, besides the read-only rest. Paths are absolute. */
export interface SandboxPolicy {
  /** Directories replaced by an empty private one (each a tmpfs), besides /tmp. */
  readonly hidden: readonly string[];
  /** Paths bound writable. A path that does not exist is left out. */
  readonly writable: readonly string[];
  /**
   * Paths bound read-only: those a hidden directory or the private /tmp would cover, and files kept
   * read-only inside a writable folder. A path that does not exist is left out. Where the same path
   * is also writable, read-only wins.
   */
  readonly readOnly: readonly string[];
}

/** A command as spawn.ts takes it. */
export interface SandboxedCommand {
  readonly command: string;
  readonly args: readonly string[];
}

type Mount = { readonly kind: 'hide' | 'writable' | 'readOnly'; readonly path: string };

/** Which of two mounts of the same depth goes last (and wins on the same path). */
const ORDER: Record<Mount['kind'], number> = { hide: 0, writable: 1, readOnly: 2 };

const FLAGS: Record<Mount['kind'], (path: string) => string[]> = {
  hide: (path) => ['--tmpfs', path],
  writable: (path) => ['--bind-try', path, path],
  readOnly: (path) => ['--ro-bind-try', path, path],
};

/** `command args…` run in `cwd` inside the sandbox `policy` describes. */
export function sandboxed(
  command: SandboxedCommand,
  cwd: string,
  policy: SandboxPolicy,
  tools: SandboxTools,
): SandboxedCommand {
  const mounts: Mount[] = [
    ...policy.hidden.map((path): Mount => ({ kind: 'hide', path: resolve(path) })),
    ...policy.writable.map((path): Mount => ({ kind: 'writable', path: resolve(path) })),
    ...policy.readOnly.map((path): Mount => ({ kind: 'readOnly', path: resolve(path) })),
  ];
  // bwrap mounts in argv order: a parent after its child would cover it.
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || ORDER[a.kind] - ORDER[b.kind]);
  const seen = new Set<string>();
  const flags: string[] = [];
  for (const mount of mounts) {
    const key = `${mount.kind} ${mount.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    flags.push(...FLAGS[mount.kind](mount.path));
  }
  return {
    command: tools.env,
    args: [
      `--ignore-signal=${FORWARDED_SIGNALS}`,
      tools.bwrap,
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      PRIVATE_TMP,
      ...flags,
      '--chdir',
      cwd,
      '--',
      tools.env,
      `--default-signal=${FORWARDED_SIGNALS}`,
      command.command,
      ...command.args,
    ],
  };
}

/** True when `path` is `dir` or inside it (both absolute). */
export function isWithin(path: string, dir: string): boolean {
  const inner = resolve(path);
  const outer = resolve(dir);
  return inner === outer || inner.startsWith(outer === sep ? sep : `${outer}${sep}`);
}

function depth(path: string): number {
  return path.split(sep).filter(Boolean).length;
}
