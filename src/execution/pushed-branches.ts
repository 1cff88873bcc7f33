/**
 * What the remote branches an attempt pushed to hold after it, besides the execution's own branch
 * (which the workspace inspection already read): a push to another branch (`git push origin
 * HEAD:other`) is confirmed only by asking its remote. Each target is asked once, in parallel, with
 * remote.ts's bound; one that does not answer is absent (its push stays unconfirmed).
 */
import type { OperationData } from '../events/schema.js';
import type { WorkspaceSnapshot } from '../workspace/inspect.js';
import { type RemoteBranch, remoteBranchState } from '../workspace/remote.js';
import { pushTarget, pushTargetKey } from './confirm.js';

export async function pushedBranches(
  worktree: string,
  branch: string,
  operations: Iterable<{ readonly type: string; readonly data: unknown }>,
  after: WorkspaceSnapshot | undefined,
): Promise<Map<string, RemoteBranch>> {
  const own = after?.remote;
  const targets = new Map<string, { remote: string; branch: string }>();
  for (const record of operations) {
    if (record.type !== 'operation') continue;
    const operation = record.data as OperationData;
    if (operation.kind !== 'push' || !operation.ok) continue;
    // A push that names no remote went where the branch's own remote is, which the inspection read.
    const target = pushTarget(operation, branch, own?.remote);
    if (target === undefined) continue;
    const key = pushTargetKey(target);
    if (own === undefined || key !== pushTargetKey(own)) targets.set(key, target);
  }
  const found = new Map<string, RemoteBranch>();
  await Promise.all(
    [...targets].map(async ([key, target]) => {
      const held = await remoteBranchState(worktree, target.branch, target.remote);
      if (held !== undefined) found.set(key, held);
    }),
  );
  return found;
}
