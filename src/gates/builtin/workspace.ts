/**
 * The `workspace` gate: an execution changes files only in its own worktree. It denies
 *
 * - a file tool (`kind: 'write'`) whose path resolves outside the worktree;
 * - a shell command that writes outside it: a redirection target (`> f`, `>> f`, `&> f`), or a file
 *   a file-changing command names (`rm`, `mv`, `cp` destination, … — the list is `file-writes.ts`);
 * - `git -C <dir>` / `--git-dir` / `--work-tree` outside it, unless the git command only reads;
 * - any command but a reading one (`ls`, `cat`, `grep`, `git log`, …) run in a directory outside
 *   the worktree, which is how `cd /elsewhere && npm install` or a hook cwd outside is caught.
 *
 * Allowed everywhere: reading. Allowed for writes: the worktree, the OS temp directory (scratch files
 * and tool caches go there, and nothing of the user's lives there), the paths the task's
 * `workspace.allowPaths` lists, and the devices `/dev/null`, `/dev/stdout`, `/dev/stderr`,
 * `/dev/tty`, `/dev/fd/N`.
 *
 * Conservative: it denies only what it can show goes outside. A word whose value exists only at run
 * time (`> "$OUT"`, `cd "$(mktemp -d)"`) is not checked and becomes a note; so are writes made by
 * programs on their own (a script, `npm install -g`), symbolic links, and what `shell.ts` and
 * `command-line.ts` say they cannot follow. This is a guard-rail against mistakes, not a sandbox.
 */

import { type RunCommand, runCommands } from '../command-line.js';
import type { GateFacts } from '../facts.js';
import { gitCommand, writtenFiles } from '../file-writes.js';
import { isInside, type PathTarget, plainPath, wordPath } from '../paths.js';
import type { ShellWord } from '../shell.js';
import type { ToolCall } from '../tool-call.js';
import { ALLOW, allowNoting, deny, type Verdict } from '../verdict.js';

export interface WorkspaceOptions {
  /** More places writes may go: absolute, or `~/…` under the home. */
  readonly allowPaths: readonly string[];
}

/** Devices a command may write to wherever it runs. */
const DEVICES: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const DESCRIPTOR_DEVICE = /^\/(?:dev\/fd|proc\/self\/fd)\/\d+$/;

/** Commands that only read files (or print), wherever they run. Writes they name are checked apart. */
const READING_COMMANDS: ReadonlySet<string> = new Set([
  ...['ls', 'cat', 'head', 'tail', 'less', 'more', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'find', 'fd'],
  ...['wc', 'pwd', 'echo', 'printf', 'stat', 'file', 'which', 'type', 'whereis', 'tree', 'du', 'df', 'diff'],
  ...['cmp', 'sort', 'uniq', 'cut', 'tr', 'sed', 'jq', 'realpath', 'readlink', 'basename', 'dirname', 'test'],
  ...['[', '[[', 'true', 'false', 'date', 'whoami', 'id', 'uname', 'ps', 'printenv', 'sleep', 'nl', 'column', 'od'],
  ...['xxd', 'hexdump', 'md5sum', 'sha1sum', 'sha256sum', 'strings', 'cd', 'pushd', 'popd', 'exit'],
]);

/** git subcommands that only read the repository. */
const GIT_READS: ReadonlySet<string> = new Set([
  ...['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'ls-tree', 'ls-remote', 'cat-file', 'blame'],
  ...['grep', 'describe', 'shortlog', 'show-ref', 'for-each-ref', 'rev-list', 'merge-base', 'version', 'help'],
]);

/** Decides whether `call` changes files outside the worktree. */
export function workspaceGate(call: ToolCall, facts: GateFacts, options: WorkspaceOptions): Verdict {
  const roots = writableRoots(facts, options);
  const allowed = (target: PathTarget) =>
    DEVICES.has(target.path) ||
    DESCRIPTOR_DEVICE.test(target.path) ||
    roots.some((root) => isInside(target.path, root));
  if (call.kind === 'write') {
    for (const path of call.paths) {
      const target = plainPath(path, call.cwd ?? facts.worktree);
      if (target && !allowed(target)) {
        return deny(`${refusal(facts)} ${call.tool} would write ${target.path}. ${advice(facts)}`);
      }
    }
    return ALLOW;
  }
  if (call.kind !== 'shell' || call.command === undefined) return ALLOW;
  const notes: string[] = [];
  for (const command of runCommands(call.command, call.cwd ?? facts.worktree, facts.home)) {
    const refused = commandRefusal(command, facts, allowed, notes);
    if (refused !== undefined) return deny(`${refusal(facts)} ${refused} ${advice(facts)}`);
  }
  return allowNoting([...new Set(notes)]);
}

/** Why `command` is refused, or undefined; what it could not check goes to `notes`. */
function commandRefusal(
  command: RunCommand,
  facts: GateFacts,
  allowed: (target: PathTarget) => boolean,
  notes: string[],
): string | undefined {
  const written: ShellWord[] = [
    ...command.redirections.filter((redirection) => redirection.writes).map((redirection) => redirection.target),
    ...writtenFiles(command.words),
  ];
  for (const word of written) {
    const target = wordPath(word, command.cwd, facts.home);
    if (target === undefined) notes.push(`could not tell where "${word.value}" is, in \`${command.text}\``);
    else if (!allowed(target)) return `\`${command.text}\` would write ${describe(target)}.`;
  }
  const git = gitCommand(command.words);
  if (git && !GIT_READS.has(git.verb ?? '')) {
    for (const option of git.global.options) {
      if (!['-C', '--git-dir', '--work-tree'].includes(option.name) || option.value === undefined) continue;
      const target = wordPath(option.value, command.cwd, facts.home);
      if (target === undefined) notes.push(`could not tell where "${option.value.value}" is, in \`${command.text}\``);
      else if (!allowed(target)) return `\`${command.text}\` would change the repository at ${target.path}.`;
    }
  }
  const reads = READING_COMMANDS.has(command.name) || (git !== undefined && GIT_READS.has(git.verb ?? ''));
  if (command.name === '' || reads) return undefined;
  if (command.cwd === undefined) {
    notes.push(`could not tell where \`${command.text}\` runs (after \`cd ${command.movedBy ?? ''}\`)`);
    return undefined;
  }
  if (allowed({ path: command.cwd, within: false })) return undefined;
  const moved = command.movedBy === undefined ? '' : ` (after \`cd ${command.movedBy}\`)`;
  return `\`${command.text}\` would run in ${command.cwd}${moved}; only commands that read may run there.`;
}

/** Where writes may go: the worktree, the temp directory, and the allowed paths that resolve. */
function writableRoots(facts: GateFacts, options: WorkspaceOptions): string[] {
  const extra = options.allowPaths.flatMap((path) => {
    const word: ShellWord = { value: path, expands: false, glob: false, tilde: path.startsWith('~') };
    const target = wordPath(word, undefined, facts.home);
    return target ? [target.path] : [];
  });
  return [facts.worktree, facts.tmpdir, ...extra];
}

function describe(target: PathTarget): string {
  return target.within ? `files in ${target.path}` : target.path;
}

function refusal(facts: GateFacts): string {
  return `HarmFlow's workspace gate refused this: it changes files outside this execution's worktree ${facts.worktree}.`;
}

function advice(facts: GateFacts): string {
  return `Make changes inside the worktree (scratch files may go under ${facts.tmpdir}); reading outside it is fine.`;
}
