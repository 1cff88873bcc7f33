/**
 * The `nothing-twice` gate: what an earlier attempt already did outside the worktree is not done
 * again, and not undone. It denies
 *
 * - opening a pull request (`gh pr create`, `hub pull-request`, `glab mr create`) for the execution's
 *   branch when one is known that is open or of unknown state; the message names it. A request
 *   whose `--head`/`-H`/`--source-branch` names another branch is left alone; a closed or merged
 *   one (as the forge reported) does not count.
 * - a push that would rewrite or delete a remote branch HarmFlow knows was pushed (`--force`, `-f`,
 *   `--force-with-lease`, `--mirror`, `+refspec`, `--delete`, `:branch`), on the same remote when
 *   the command names one. `--force-with-lease` is refused too: it guards against other people's
 *   pushes, not against dropping commits an earlier attempt pushed.
 *
 * A normal push (a fast-forward) is allowed, and so is forcing a branch no known push touched.
 * What is known comes from `GateFacts` (earlier attempts in context.json, the forge when asked);
 * pull requests opened through the forge's API or web page are not seen here. Commands are read through
 * wrappers, absolute paths and nested shells (`timeout 30 /usr/bin/gh pr create`, `sh -c 'git push
 * -f'` — `command-line.ts`). Reads the file system only to follow links.
 */
import { type RunCommand, runCommands } from '../command-line.js';
import type { GateFacts, KnownPullRequest, KnownPush } from '../facts.js';
import { gitCommand, optionValue, parseArgs } from '../file-writes.js';
import { gitPush } from '../git-push.js';
import type { ToolCall } from '../tool-call.js';
import { ALLOW, deny, type Verdict } from '../verdict.js';

/** The CLIs that open a pull (merge) request: their words, the option naming the head, and how to edit one. */
const OPENERS = [
  { words: ['gh', 'pr', 'create'], head: ['-H', '--head'], edit: (id: string) => `\`gh pr edit ${id}\`` },
  { words: ['hub', 'pull-request'], head: ['-h', '--head'], edit: () => 'the forge' },
  {
    words: ['glab', 'mr', 'create'],
    head: ['-s', '--source-branch'],
    edit: (id: string) => `\`glab mr update ${id}\``,
  },
] as const;

/** Decides whether a shell call repeats or undoes what an earlier attempt did. */
export function nothingTwiceGate(call: ToolCall, facts: GateFacts): Verdict {
  if (call.kind !== 'shell' || call.command === undefined) return ALLOW;
  for (const command of runCommands(call.command, call.cwd ?? facts.worktree, facts.home)) {
    const refused = secondPullRequest(command, facts) ?? rewrittenPush(command, facts);
    if (refused !== undefined) return deny(`HarmFlow's nothing-twice gate refused \`${command.text}\`: ${refused}`);
  }
  return ALLOW;
}

/**
 * True when a shell call opens a pull request for the execution's branch: the gate runner then asks
 * the forge what the branch already has before this gate decides.
 */
export function opensPullRequest(call: ToolCall, facts: GateFacts): boolean {
  if (call.kind !== 'shell' || call.command === undefined) return false;
  return runCommands(call.command, call.cwd ?? facts.worktree, facts.home).some(
    (command) => pullRequestOpener(command, facts) !== undefined,
  );
}

/** The opener `command` runs for the execution's branch, if it opens a pull request for it. */
function pullRequestOpener(command: RunCommand, facts: GateFacts): (typeof OPENERS)[number] | undefined {
  const values = command.words.map((word) => word.value);
  const opener = OPENERS.find((candidate) => candidate.words.every((word, index) => values[index] === word));
  if (opener === undefined) return undefined;
  const args = parseArgs(command.words.slice(opener.words.length), new Set(opener.head));
  const head = optionValue(args, ...opener.head)?.value;
  if (head !== undefined && head.slice(head.lastIndexOf(':') + 1) !== facts.branch) return undefined;
  return opener;
}

function secondPullRequest(command: RunCommand, facts: GateFacts): string | undefined {
  const opener = pullRequestOpener(command, facts);
  if (opener === undefined) return undefined;
  const existing = facts.pullRequests.find((request) => request.state === undefined || request.state === 'open');
  if (existing === undefined) return undefined;
  const id = existing.number === undefined ? existing.url : String(existing.number);
  return (
    `branch ${facts.branch} already has a pull request, ${describePullRequest(existing)}. Do not open another: ` +
    `push new commits to ${facts.branch} and they show in it; to change its title or description, edit it with ${opener.edit(id)}.`
  );
}

function rewrittenPush(command: RunCommand, facts: GateFacts): string | undefined {
  const git = gitCommand(command.words);
  const push = git && gitPush(git, facts.branch);
  if (!push || push.dryRun) return undefined;
  for (const target of push.targets) {
    if (!target.rewrites && !target.deletes) continue;
    const known = facts.pushes.find(
      (earlier) =>
        (target.branch === '*' || earlier.branch === target.branch) &&
        (push.remote === undefined || earlier.remote === push.remote),
    );
    if (known === undefined) continue;
    if (target.deletes) {
      return `${describePush(known)}; deleting it would drop what was pushed. Leave it; push new commits on top of it.`;
    }
    const how = push.forceOptions.length > 0 ? push.forceOptions.join(' ') : 'a `+` refspec';
    return (
      `${describePush(known)}, and ${how} would rewrite that history. Add new commits on top of it and push without ` +
      `forcing (a fast-forward push is allowed); if the remote branch moved, merge it first: ` +
      `\`git pull --no-rebase ${known.remote} ${known.branch}\`.`
    );
  }
  return undefined;
}

function describePullRequest(request: KnownPullRequest): string {
  const number = request.number === undefined ? '' : ` (#${request.number})`;
  return `${request.url}${number}${by(request)}`;
}

function describePush(push: KnownPush): string {
  const at = push.sha === undefined ? '' : ` at ${push.sha.slice(0, 12)}`;
  return `${push.branch} was already pushed to ${push.remote}${at}${by(push)}`;
}

function by(known: { readonly attempt?: number; readonly harness?: string }): string {
  if (known.attempt === undefined) return '';
  return `, by attempt ${known.attempt}${known.harness === undefined ? '' : ` (${known.harness})`}`;
}
