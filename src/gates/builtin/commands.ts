/**
 * The `commands` gate: shell commands an unattended agent should not run, as named rules a task can
 * relax by id, plus the task's own deny patterns. The default rules, and why each is on:
 *
 * - `force-push-base`: `git push --force`/`-f`/`--force-with-lease`/`--mirror`/`+refspec` onto the
 *   base branch. It rewrites history everyone else builds on; nothing in an execution needs it.
 * - `push-base`: any push (or delete) of the base branch. An execution works on its own branch and
 *   reaches the base through a pull request someone reviews; a direct push skips that review.
 * - `recursive-delete`: `rm -r` of `/`, the home directory, the worktree itself (or a directory
 *   holding it), the worktree's `.git`, the whole temp directory, or anything else outside the
 *   worktree and the temp directory. Such a delete cannot be undone and is never the task.
 * - `pipe-to-shell`: `curl …|sh`, `wget …|bash`, `sh -c "$(curl …)"`, `bash <(curl …)`: running a
 *   script fetched a moment ago, unread.
 *
 * Not default, on purpose: `git reset --hard` (local, recoverable from the reflog; what would lose
 * pushed work is the forced push after it, which `force-push-base` and the `nothing-twice` gate
 * refuse) and `sudo` (whether it is fine depends on the machine; a task can deny it by pattern).
 *
 * A task's `deny` patterns are JavaScript regular expressions, each tested against every simple
 * command of the line on its own (`a && b | c` is tested as `a`, `b`, `c`; the command string of
 * `sh -c '…'` is split too), as written, without here-document bodies. Pure.
 */
import { join } from 'node:path';
import { COMMAND_RULES, type CommandRuleId } from '../../core/command-rules.js';
import { type RunCommand, runCommands } from '../command-line.js';
import type { GateFacts } from '../facts.js';
import { gitCommand, hasOption, parseArgs } from '../file-writes.js';
import { gitPush, type PushTarget } from '../git-push.js';
import { isInside, wordPath } from '../paths.js';
import type { ToolCall } from '../tool-call.js';
import { ALLOW, allowNoting, deny, type Verdict } from '../verdict.js';

/** A task's own deny rule. */
export interface CommandPattern {
  readonly pattern: RegExp;
  /** What the agent reads when the pattern refuses a command. */
  readonly message: string;
}

export interface CommandsOptions {
  readonly deny: readonly CommandPattern[];
  /** Default rules turned off. */
  readonly allow: readonly CommandRuleId[];
}

type Rule = (command: RunCommand, line: readonly RunCommand[], facts: GateFacts, notes: string[]) => string | undefined;

/** Decides whether a shell call runs a command the rules deny. */
export function commandsGate(call: ToolCall, facts: GateFacts, options: CommandsOptions): Verdict {
  if (call.kind !== 'shell' || call.command === undefined) return ALLOW;
  const rules = COMMAND_RULES.filter((id) => !options.allow.includes(id));
  const line = runCommands(call.command, call.cwd ?? facts.worktree, facts.home);
  const notes: string[] = [];
  for (const command of line) {
    for (const id of rules) {
      const refused = RULES[id](command, line, facts, notes);
      if (refused !== undefined) {
        return deny(`HarmFlow's commands gate refused \`${command.text}\` (rule ${id}): ${refused}`);
      }
    }
    const matched = options.deny.find(({ pattern }) => pattern.test(command.text));
    if (matched) {
      return deny(
        `HarmFlow's commands gate refused \`${command.text}\` (this task denies /${matched.pattern.source}/): ${matched.message}`,
      );
    }
  }
  return allowNoting([...new Set(notes)]);
}

const RULES: Readonly<Record<CommandRuleId, Rule>> = {
  'force-push-base': (command, _line, facts) => {
    const hit = basePushTargets(command, facts).find((target) => target.rewrites);
    if (hit === undefined || facts.baseBranch === undefined) return undefined;
    return `it would rewrite ${facts.baseBranch}, the base branch this execution started from. ${pushElsewhere(facts)}`;
  },
  'push-base': (command, _line, facts) => {
    const hit = basePushTargets(command, facts)[0];
    if (hit === undefined || facts.baseBranch === undefined) return undefined;
    const act = hit.deletes ? 'delete' : 'push to';
    return `it would ${act} ${facts.baseBranch}, the base branch; work reaches the base through a reviewed pull request. ${pushElsewhere(facts)}`;
  },
  'recursive-delete': (command, _line, facts, notes) => {
    if (command.name !== 'rm') return undefined;
    const args = parseArgs(command.words.slice(1));
    if (!hasOption(args, '-r', '-R', '--recursive')) return undefined;
    for (const word of args.operands) {
      const target = wordPath(word, command.cwd, facts.home);
      if (target === undefined) {
        notes.push(`could not tell what \`${command.text}\` deletes ("${word.value}")`);
        continue;
      }
      const what = target.within ? `everything in ${target.path}` : target.path;
      const danger = deletionDanger(target.path, target.within, facts);
      if (danger !== undefined) {
        return `it would delete ${what}, ${danger}. Delete only what this task created, inside the worktree or under ${facts.tmpdir}.`;
      }
    }
    return undefined;
  },
  'pipe-to-shell': (command, line) => {
    if (!runsFetchedScript(command, line)) return undefined;
    return "it runs a script downloaded a moment ago without anyone reading it. Download it to a file, read it, and run it only if it does what you expect; or install the tool with the project's package manager.";
  },
};

/** The targets of a push in `command` that hit the base branch (none when it is not a real push). */
function basePushTargets(command: RunCommand, facts: GateFacts): PushTarget[] {
  const git = gitCommand(command.words);
  const push = git && gitPush(git, facts.branch);
  if (!push || push.dryRun || facts.baseBranch === undefined) return [];
  return push.targets.filter((target) => target.branch === '*' || target.branch === facts.baseBranch);
}

function pushElsewhere(facts: GateFacts): string {
  return `Push to this execution's branch instead: \`git push origin HEAD:${facts.branch}\`.`;
}

/** Why deleting `path` (or everything in it, `within`) is refused; undefined when it is fine. */
function deletionDanger(path: string, within: boolean, facts: GateFacts): string | undefined {
  if (path === '/') return 'the whole file system';
  if (facts.home !== undefined && isInside(facts.home, path)) return 'the home directory';
  if (isInside(facts.worktree, path) && !(within && path === facts.worktree)) return 'the worktree itself';
  if (isInside(path, join(facts.worktree, '.git'))) return "the worktree's link to its repository";
  if (isInside(path, facts.worktree)) return undefined;
  if (isInside(facts.tmpdir, path)) return 'the whole temp directory';
  if (isInside(path, facts.tmpdir)) return undefined;
  return `outside this execution's worktree ${facts.worktree}`;
}

/** Shells a fetched script could be piped or handed to. */
const SHELLS = /^(?:.*\/)?(?:sh|bash|zsh|dash|ksh|fish|source|\.)$/;
const FETCHERS: ReadonlySet<string> = new Set(['curl', 'wget']);
/** A word that is the output of a fetch: `$(curl …)`, `` `wget …` ``, `<(curl …)`. */
const FETCHED = /^(?:\$\(|`|<\()\s*(?:curl|wget)\b/;

/** True when `command` is a shell that runs what curl/wget fetched, piped in or substituted. */
function runsFetchedScript(command: RunCommand, line: readonly RunCommand[]): boolean {
  if (!SHELLS.test(command.name)) return false;
  if (command.words.some((word) => word.expands && FETCHED.test(word.value))) return true;
  // Walk back along the pipeline this command ends.
  for (let index = line.indexOf(command); index > 0 && line[index]?.after === '|'; index--) {
    if (FETCHERS.has(line[index - 1]?.name ?? '')) return true;
  }
  return false;
}
