/**
 * The `commands` gate: shell commands an unattended agent should not run, as named rules a task can
 * relax by id, plus the task's own deny patterns. Every command of the line is judged as it runs:
 * through wrappers, absolute paths and nested shells (`timeout 60 git push`, `/usr/bin/git push`,
 * `sh -c '…'`, `xargs`, `find -exec`, … — `command-line.ts`). The default rules, and why each is on:
 *
 * - `force-push-base`: `git push --force`/`-f`/`--force-with-lease`/`--mirror`/`+refspec` onto the
 *   base branch. It rewrites history everyone else builds on; nothing in an execution needs it.
 * - `push-base`: any push (or delete) of the base branch. An execution works on its own branch and
 *   reaches the base through a pull request someone reviews; a direct push skips that review.
 * - `recursive-delete`: `rm -r` of `/`, the home directory, the worktree itself (or a directory
 *   holding it), the worktree's `.git`, HarmFlow's state directory or anything in it (other
 *   executions, the database), the whole temp directory, or anything else outside the worktree and the
 *   temp directory — judged where the path leads, through symbolic links. Such a delete cannot be
 *   undone and is never the task.
 * - `pipe-to-shell`: remote content fed to an interpreter on the line that downloads it: `curl … |
 *   python3`, `bash <(curl …)`, `eval "$(curl …)"`, `curl -o i.sh … && sh i.sh` (`fetched-code.ts`):
 *   running code fetched a moment ago, unread.
 * - `hidden-command`: a command the gates cannot see into — an interpreter's inline code (`python3
 *   -c`, `node -e`, `perl -e`, an awk program), a command line or a command name known only at run
 *   time, a line nested past the gates' limit — that mentions an act they check (`git push`, `gh pr
 *   create`, `rm -rf`, `rmtree`, … — `hidden-acts.ts`). The agent can run that command directly.
 *
 * Not default, on purpose: `git reset --hard` (local, recoverable from the reflog; what would lose
 * pushed work is the forced push after it, which `force-push-base` and the `nothing-twice` gate
 * refuse) and `sudo` (whether it is fine depends on the machine; a task can deny it by pattern).
 *
 * A task's `deny` patterns are JavaScript regular expressions, each tested against every simple
 * command of the line on its own (`a && b | c` is tested as `a`, `b`, `c`; the command string of
 * `sh -c '…'` is split too), as written, without here-document bodies. Reads the file system only to
 * follow symbolic links.
 */
import { join } from 'node:path';
import { COMMAND_RULES, type CommandRuleId } from '../../core/command-rules.js';
import { SHELLS } from '../../core/command-wrappers.js';
import { type Hidden, type RunCommand, runCommands } from '../command-line.js';
import type { GateFacts } from '../facts.js';
import { fetchedCode } from '../fetched-code.js';
import { gitCommand, hasOption, parseArgs } from '../file-writes.js';
import { gitPush, type PushTarget } from '../git-push.js';
import { mentionedAct } from '../hidden-acts.js';
import { programOf } from '../interpreters.js';
import { linksMade, throughLinksMade } from '../links-made.js';
import { isInside, type PathTarget, type Places, placesOf, throughLink, wordPath } from '../paths.js';
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

/** What a rule reads besides the command: the whole line, the facts, where the guarded places really are. */
interface Scene {
  readonly line: readonly RunCommand[];
  readonly facts: GateFacts;
  readonly places: Places;
  readonly notes: string[];
}

type Rule = (command: RunCommand, scene: Scene) => string | undefined;

/** Decides whether a shell call runs a command the rules deny. */
export function commandsGate(call: ToolCall, facts: GateFacts, options: CommandsOptions): Verdict {
  if (call.kind !== 'shell' || call.command === undefined) return ALLOW;
  const rules = COMMAND_RULES.filter((id) => !options.allow.includes(id));
  const line = runCommands(call.command, call.cwd ?? facts.worktree, facts.home);
  const notes: string[] = [];
  const scene: Scene = { line, facts, places: placesOf(facts), notes };
  for (const command of line) {
    for (const id of rules) {
      const refused = RULES[id](command, scene);
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
  'force-push-base': (command, { facts }) => {
    const hit = basePushTargets(command, facts).find((target) => target.rewrites);
    if (hit === undefined || facts.baseBranch === undefined) return undefined;
    return `it would rewrite ${facts.baseBranch}, the base branch this execution started from${runTimeTargets(command)}. ${pushElsewhere(facts)}`;
  },
  'push-base': (command, { facts }) => {
    const hit = basePushTargets(command, facts)[0];
    if (hit === undefined || facts.baseBranch === undefined) return undefined;
    const act = hit.deletes ? 'delete' : 'push to';
    return `it would ${act} ${facts.baseBranch}, the base branch${runTimeTargets(command)}; work reaches the base through a reviewed pull request. ${pushElsewhere(facts)}`;
  },
  'recursive-delete': (command, { line, facts, places, notes }) => {
    if (command.name !== 'rm') return undefined;
    const args = parseArgs(command.words.slice(1));
    if (!hasOption(args, '-r', '-R', '--recursive')) return undefined;
    if (command.appends)
      notes.push(`could not tell all that \`${command.text}\` deletes (arguments added at run time)`);
    for (const word of args.operands) {
      // `rm -r link` removes the link; `rm -r link/` what it leads to.
      const found = wordPath(word, command.cwd, facts.home, false);
      const target = found && throughLinksMade(found, linksMade(line, command, facts.home), /\/\.?$/.test(word.value));
      if (target === undefined) {
        notes.push(`could not tell what \`${command.text}\` deletes ("${word.value}")`);
        continue;
      }
      const danger = deletionDanger(target, places);
      if (danger !== undefined) {
        const what = `${target.within ? `everything in ${target.path}` : target.path}${throughLink(target)}`;
        return `it would delete ${what}, ${danger}. Delete only what this task created, inside the worktree or under ${facts.tmpdir}.`;
      }
    }
    return undefined;
  },
  'pipe-to-shell': (command, { line, facts }) => {
    const how = fetchedCode(command, line, facts.home);
    if (how === undefined) return undefined;
    return `it runs code downloaded a moment ago without anyone reading it: ${how}. Download it to a file, read it, and run it in a later call only if it does what you expect; or install the tool with the project's package manager.`;
  },
  'hidden-command': (command, { notes }) => {
    const hidden = command.hidden ?? inlineCode(command);
    if (hidden === undefined) return undefined;
    const act = mentionedAct(hidden.text, hidden.anyName);
    if (act === undefined) {
      if (command.hidden) notes.push(`could not see what \`${command.text}\` runs: ${hidden.what}`);
      return undefined;
    }
    return `the gates cannot see what it runs (${hidden.what}), and it mentions \`${act}\`, which they check. Run that command directly in the shell, where the gates can check it.`;
  },
};

/** An interpreter's inline code (`python3 -c '…'`), which the gates cannot read as commands. */
function inlineCode(command: RunCommand): Hidden | undefined {
  const program = programOf(command.words);
  // A shell's `-c` line and `eval`'s are read as commands already (command-line.ts).
  if (program?.code === undefined || program.interpreter === 'eval' || SHELLS.has(program.interpreter))
    return undefined;
  return { what: `inline ${program.interpreter} code`, text: program.code.value };
}

/** The targets of a push in `command` that hit the base branch (none when it is not a real push). */
function basePushTargets(command: RunCommand, facts: GateFacts): PushTarget[] {
  const git = gitCommand(command.words);
  const push = git && gitPush(git, facts.branch);
  if (!push || push.dryRun || facts.baseBranch === undefined) return [];
  // `… | xargs git push -f origin`: what it pushes is added at run time, and may be the base.
  const unseen = command.appends ? [{ branch: '*', rewrites: push.forceOptions.length > 0, deletes: false }] : [];
  return [...push.targets, ...unseen].filter((target) => target.branch === '*' || target.branch === facts.baseBranch);
}

/** How a push whose refspecs come at run time (`xargs`, `parallel`) may reach the base branch, for messages. */
function runTimeTargets(command: RunCommand): string {
  return command.appends ? ' — if the arguments added at run time, which the gates cannot see, name it' : '';
}

function pushElsewhere(facts: GateFacts): string {
  return `Push to this execution's branch instead: \`git push origin HEAD:${facts.branch}\`.`;
}

/** Why deleting `target` (or everything in it, `within`) is refused; undefined when it is fine. */
function deletionDanger({ path, within }: PathTarget, places: Places): string | undefined {
  const { worktree, tmpdir, home, stateDir } = places;
  if (path === '/') return 'the whole file system';
  if (home !== undefined && isInside(home, path)) return 'the home directory';
  if (isInside(worktree, path) && !(within && path === worktree)) return 'the worktree itself';
  if (isInside(path, join(worktree, '.git'))) return "the worktree's link to its repository";
  if (isInside(path, worktree)) return undefined;
  if (stateDir !== undefined && (isInside(path, stateDir) || isInside(stateDir, path))) {
    return `in HarmFlow's state directory ${stateDir} (other executions' worktrees and records, its database), outside this execution's worktree`;
  }
  if (isInside(tmpdir, path)) return 'the whole temp directory';
  if (isInside(path, tmpdir)) return undefined;
  return `outside this execution's worktree ${worktree}`;
}
