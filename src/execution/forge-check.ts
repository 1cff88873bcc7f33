/**
 * Whether the harnesses of a task that asks for a pull request can open one: the forge's CLI, `gh`,
 * must be on the PATH each link runs with (a simulated link always has the fake forge's,
 * simulators/launch.ts). A task whose prompt names a pull request (claims.ts's words) while a link
 * would find no `gh` gets one `workspace.warning` of kind `no_forge` before its first attempt,
 * naming those links: without it the pull request fails quietly (`gh: command not found`, exit 127)
 * inside an execution that may still succeed. Pure but for the look-up on PATH.
 */
import type { Task } from '../core/task.js';
import { linkLabel } from '../core/task.js';
import type { EventData } from '../events/schema.js';
import { findExecutable } from '../proc/which.js';
import { claimedEvidence } from './claims.js';

/** The forge's command line: what an agent opens a pull request with, and nothing-twice asks. */
const FORGE_CLI = 'gh';

/**
 * The `no_forge` warning for `task`, whose harnesses run with `path` as PATH (a link's own `env`
 * PATH wins); undefined when its prompt asks for no pull request or every link has a `gh`.
 */
export function noForgeWarning(task: Task, path: string): EventData<'workspace.warning'> | undefined {
  if (!claimedEvidence(task.prompt).includes('pull_request')) return undefined;
  const without = task.chain.flatMap((link, index) =>
    link.simulate !== undefined || findExecutable(FORGE_CLI, link.env.PATH ?? path) !== undefined
      ? []
      : [linkLabel(task.chain, index)],
  );
  if (without.length === 0) return undefined;
  return {
    kind: 'no_forge',
    message:
      `no pull request can be opened: the task asks for one, but no \`${FORGE_CLI}\` (GitHub's CLI) is on the PATH of ` +
      `${without.join(', ')}; install it (https://cli.github.com) and give the harness its token (passEnv: [GH_TOKEN])`,
  };
}
