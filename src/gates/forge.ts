/**
 * Asking the forge which pull requests the execution's branch has, for the `nothing-twice` gate: a
 * pull request opened by hand, by an attempt whose report was lost, or through the forge's web page
 * is known only there. Asked only before a call that opens a pull request (about one per execution),
 * so its cost never lands on ordinary tool calls. Through `gh pr list` in the worktree (the forge CLI
 * the agent itself uses, with its credentials); any failure — no `gh`, no network, a timeout —
 * leaves the facts as they were and says why, never blocks the call by itself.
 */
import * as z from 'zod/mini';
import { runCommand } from '../proc/run.js';
import type { KnownPullRequest } from './facts.js';

/** 3 s: `gh pr list` answers in well under a second on a reachable forge; the agent waits on this. */
const FORGE_TIMEOUT_MS = 3000;

const Listed = z.array(
  z.object({
    url: z.string(),
    number: z.optional(z.int()),
    state: z.optional(z.string()),
  }),
);

const STATES = { OPEN: 'open', CLOSED: 'closed', MERGED: 'merged' } as const;

/** The branch's pull requests as the forge lists them, or why they could not be listed. */
export async function forgePullRequests(
  worktree: string,
  branch: string,
): Promise<{ readonly pullRequests: KnownPullRequest[] } | { readonly failure: string }> {
  const run = await runCommand('gh', ['pr', 'list', '--head', branch, '--state', 'all', '--json', 'url,number,state'], {
    cwd: worktree,
    timeoutMs: FORGE_TIMEOUT_MS,
  });
  if (run.timedOut) return { failure: `gh pr list timed out after ${FORGE_TIMEOUT_MS} ms` };
  if (run.error !== undefined) return { failure: `gh pr list: ${run.error}` };
  if (run.exitCode !== 0)
    return { failure: `gh pr list exited ${run.exitCode}: ${run.stderr.trim().split('\n')[0] ?? ''}` };
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    return { failure: 'gh pr list printed something that is not JSON' };
  }
  const listed = Listed.safeParse(json);
  if (!listed.success) return { failure: 'gh pr list printed JSON of an unexpected shape' };
  return {
    pullRequests: listed.data.map((request) => {
      const state =
        request.state === undefined ? undefined : STATES[request.state.toUpperCase() as keyof typeof STATES];
      return {
        url: request.url,
        ...(request.number !== undefined && { number: request.number }),
        ...(state !== undefined && { state }),
      };
    }),
  };
}
