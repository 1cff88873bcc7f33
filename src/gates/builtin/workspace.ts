/**
 * The `workspace` gate: an execution changes files only in its own worktree. It denies
 *
 * - a file tool (`kind: 'write'`) whose path leads outside the worktree;
 * - a shell command that writes outside it: a redirection target (`> f`, `>> f`, `&> f`), or a file
 *   a file-changing command names (`rm`, `mv`, `cp` destination, … — the list is `file-writes.ts`),
 *   however the command is run (`timeout`, `xargs`, `find -exec`, `sh -c`, … — `command-line.ts`);
 * - `git -C <dir>` / `--git-dir` / `--work-tree` outside it, unless the git command only reads;
 * - any command but a reading one (`ls`, `cat`, `grep`, `git log`, …) run in a directory outside
 *   the worktree, which is how `cd /elsewhere && npm install` or a hook cwd outside is caught;
 * - any command but a reading one that names a path in HarmFlow's state directory
 *   (`sqlite3 <state>/harmflow.db …`).
 *
 * Paths are judged where they lead, through symbolic links (`paths.ts`): a link in the worktree to a
 * directory outside is outside. Deleting or moving the link itself (`rm lnk`) stays inside.
 *
 * Allowed everywhere: reading. Allowed for writes: the worktree, the OS temp directory (scratch files
 * and tool caches go there, and nothing of the user's lives there), the paths the task's
 * `workspace.allowPaths` lists, and the devices `/dev/null`, `/dev/stdout`, `/dev/stderr`,
 * `/dev/tty`, `/dev/fd/N`. Never through those exemptions: HarmFlow's state directory (other
 * executions' worktrees and records, its database), even when it lies under the temp directory; only
 * this execution's worktree inside it is writable.
 *
 * Conservative: it denies only what it can show goes outside. A word whose value exists only at run
 * time (`> "$OUT"`, `cd "$(mktemp -d)"`) is not checked and becomes a note; so are writes made by
 * programs on their own (a script, `npm install -g`) and what `shell.ts` and `command-line.ts` say
 * they cannot follow. The OS sandbox, where the host has one, is the guarantee; this gate explains.
 */

import { type RunCommand, runCommands } from '../command-line.js';
import type { GateFacts } from '../facts.js';
import { actsOnEntry, gitCommand, writtenFiles } from '../file-writes.js';
import { GATE_DIR_ENV } from '../hook-event.js';
import { linksMade, type MadeLink, throughLinksMade } from '../links-made.js';
import { isInside, type PathTarget, type Places, placesOf, plainPath, throughLink, wordPath } from '../paths.js';
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

/** Why a path may not be changed: it is outside the worktree, or in HarmFlow's state directory. */
type Forbidden = 'outside' | 'state';

/**
 * Whether a path may be changed: undefined when it may. `whole`: the change reaches everything under
 * the path (a file a command writes, deletes or moves), so a folder holding the state directory is in it.
 */
type Judge = (target: PathTarget, whole?: boolean) => Forbidden | undefined;

/** Decides whether `call` changes files outside the worktree. */
export function workspaceGate(call: ToolCall, facts: GateFacts, options: WorkspaceOptions): Verdict {
  const places = placesOf(facts);
  const judge = judgeOf(places, facts, options);
  const where = (forbidden: Forbidden) => (forbidden === 'state' ? inState(places) : '');
  if (call.kind === 'write') {
    for (const path of call.paths) {
      const target = plainPath(path, call.cwd ?? facts.worktree);
      const forbidden = target && judge(target);
      if (target && forbidden) {
        return deny(
          `${refusal(facts)} ${call.tool} would write ${describe(target)}${where(forbidden)}. ${advice(facts)}`,
        );
      }
    }
    return ALLOW;
  }
  if (call.kind !== 'shell' || call.command === undefined) return ALLOW;
  const notes: string[] = [];
  const line = runCommands(call.command, call.cwd ?? facts.worktree, facts.home);
  for (const command of line) {
    const links = linksMade(line, command, facts.home);
    const refused = commandRefusal(command, { facts, judge, where, links }, notes);
    if (refused !== undefined) return deny(`${refusal(facts)} ${refused} ${advice(facts)}`);
  }
  return allowNoting([...new Set(notes)]);
}

/** Judges paths: the devices, the worktree, then (outside HarmFlow's state directory) the temp directory and `allowPaths`. */
function judgeOf(places: Places, facts: GateFacts, options: WorkspaceOptions): Judge {
  const roots = [places.tmpdir, ...allowedPaths(facts, options)];
  const { worktree, stateDir } = places;
  return (target, whole = false) => {
    const written = target.written ?? target.path;
    if (DEVICES.has(written) || DESCRIPTOR_DEVICE.test(written)) return undefined;
    if (isInside(target.path, worktree)) return undefined;
    const holds = whole || target.within;
    const state =
      stateDir !== undefined && (isInside(target.path, stateDir) || (holds && isInside(stateDir, target.path)));
    if (state) return 'state';
    return roots.some((root) => isInside(target.path, root)) ? undefined : 'outside';
  };
}

/** What judging a command takes besides the command. */
interface Bench {
  readonly facts: GateFacts;
  readonly judge: Judge;
  /** Why a place is forbidden, in words. */
  readonly where: (forbidden: Forbidden) => string;
  /** The symbolic links the line makes before the command. */
  readonly links: readonly MadeLink[];
}

/** Why `command` is refused, or undefined; what it could not check goes to `notes`. */
function commandRefusal(command: RunCommand, bench: Bench, notes: string[]): string | undefined {
  const { facts, judge, where, links } = bench;
  const redirected = command.redirections.filter((each) => each.writes).map((each) => each.target);
  for (const word of [...redirected, ...writtenFiles(command.words)]) {
    if (GATE_DIR_WORD.test(word.value)) return namesGateDir(command, where);
    // `rm lnk` and `mv lnk x` act on the link; writes go through it.
    const followLast = redirected.includes(word) || !actsOnEntry(command.words, word);
    const found = wordPath(word, command.cwd, facts.home, followLast);
    const target = found && throughLinksMade(found, links, followLast || /\/\.?$/.test(word.value));
    const forbidden = target && judge(target, true);
    if (target === undefined) notes.push(`could not tell where "${word.value}" is, in \`${command.text}\``);
    else if (forbidden) return `\`${command.text}\` would write ${describe(target)}${where(forbidden)}.`;
  }
  if (command.appends && command.name === 'rm') {
    // `… | xargs rm -rf`: what it deletes is read at run time. `find … -delete` or `-exec rm {} +` says where.
    return `\`${command.text}\` would delete what is named at run time (arguments added by xargs or parallel), which the gates cannot see; use \`find <folder> … -delete\` or \`find <folder> … -exec rm {} +\`, whose folder they check.`;
  }
  if (command.appends) notes.push(`could not tell all that \`${command.text}\` changes (arguments added at run time)`);
  const git = gitCommand(command.words);
  if (git && !GIT_READS.has(git.verb ?? '')) {
    for (const option of git.global.options) {
      if (!['-C', '--git-dir', '--work-tree'].includes(option.name) || option.value === undefined) continue;
      const found = wordPath(option.value, command.cwd, facts.home);
      const target = found && throughLinksMade(found, links);
      const forbidden = target && judge(target);
      if (target === undefined) notes.push(`could not tell where "${option.value.value}" is, in \`${command.text}\``);
      else if (forbidden) {
        return `\`${command.text}\` would change the repository at ${describe(target)}${where(forbidden)}.`;
      }
    }
  }
  const reads = READING_COMMANDS.has(command.name) || (git !== undefined && GIT_READS.has(git.verb ?? ''));
  if (command.name === '' || reads) return undefined;
  if (command.words.some((word) => GATE_DIR_WORD.test(word.value))) return namesGateDir(command, where);
  const named = stateOperand(command, facts, judge);
  if (named !== undefined) return `\`${command.text}\` names ${describe(named)}${where('state')}.`;
  if (command.cwd === undefined) {
    notes.push(`could not tell where \`${command.text}\` runs (after \`cd ${command.movedBy ?? ''}\`)`);
    return undefined;
  }
  const written = command.cwdWritten === undefined ? {} : { written: command.cwdWritten };
  const place = throughLinksMade({ path: command.cwd, ...written, within: false }, links);
  const forbidden = judge(place);
  if (forbidden === undefined) return undefined;
  const moved = command.movedBy === undefined ? '' : ` (after \`cd ${command.movedBy}\`)`;
  return `\`${command.text}\` would run in ${describe(place)}${moved}${where(forbidden)}; only commands that read may run there.`;
}

/**
 * `$HARMFLOW_GATE_DIR` (or `${HARMFLOW_GATE_DIR}`) in a word: the attempt's folder, whose value the
 * runner does not substitute. It is in HarmFlow's state directory, where no task has anything to do.
 */
const GATE_DIR_WORD = new RegExp(`\\$\\{?${GATE_DIR_ENV}\\b`);

/** The refusal of `command`, which writes or acts on something under `$HARMFLOW_GATE_DIR`. */
function namesGateDir(command: RunCommand, where: Bench['where']): string {
  return `\`${command.text}\` names $${GATE_DIR_ENV}, the gate configuration of this attempt${where('state')}.`;
}

/**
 * The path in HarmFlow's state directory a command that does not only read names
 * (`sqlite3 <state>/harmflow.db …`): whatever the program does with it, the state is not the agent's.
 */
function stateOperand(command: RunCommand, facts: GateFacts, judge: Judge): PathTarget | undefined {
  for (const word of command.words.slice(1)) {
    if (word.value.startsWith('-') || !/[/~]/.test(word.value)) continue;
    const target = wordPath(word, command.cwd, facts.home);
    if (target && judge(target) === 'state') return target;
  }
  return undefined;
}

/** ", in HarmFlow's state directory …": why a path there is refused even under the temp directory. */
function inState(places: Places): string {
  return `, in HarmFlow's state directory ${places.stateDir}, which holds other executions' worktrees and records and its database: only HarmFlow writes there`;
}

/** The task's `allowPaths`, resolved: absolute or under the home, links followed. */
function allowedPaths(facts: GateFacts, options: WorkspaceOptions): string[] {
  return options.allowPaths.flatMap((path) => {
    const word: ShellWord = { value: path, expands: false, glob: false, tilde: path.startsWith('~') };
    const target = wordPath(word, undefined, facts.home);
    return target ? [target.path] : [];
  });
}

function describe(target: PathTarget): string {
  return `${target.within ? `files in ${target.path}` : target.path}${throughLink(target)}`;
}

function refusal(facts: GateFacts): string {
  return `HarmFlow's workspace gate refused this: it changes files outside this execution's worktree ${facts.worktree}.`;
}

function advice(facts: GateFacts): string {
  return `Make changes inside the worktree (scratch files may go under ${facts.tmpdir}); reading outside it is fine.`;
}
