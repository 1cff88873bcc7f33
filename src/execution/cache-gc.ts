/**
 * `collectCaches` keeps the shared caches (`HARMFLOW_HOME/caches/<tool>`, cache-plan.ts) under a
 * size limit: when the tools' folders together take more than `limitBytes`, it removes whole tool
 * folders, the one written longest ago first, until the rest fit. A whole folder, because none of
 * these tools promises that a cache with some of its files taken away still works (npm's cacache
 * keeps an index beside its content; Go and Cargo keep lock files and markers); a removed folder
 * costs the next execution that needs it one download, nothing else. "Written longest ago" is the
 * newest modification time of anything in the folder: a cache that is only read for weeks looks
 * old, and goes before one written yesterday.
 *
 * Never while a harness runs with the shared caches (cache-users.ts): the collection claims
 * `caches/.gc`, then finds no live user or gives up, saying how many use them. Each folder is first
 * renamed out of its place (`caches/.removing-<tool>-<time>`, atomic), so a turn that starts right
 * after sees the folder whole or not at all, then deleted. `dryRun` measures and says what would go,
 * changing nothing.
 */
import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import { treeUsage } from '../workspace/disk-usage.js';
import { removeTree } from '../workspace/remove-tree.js';
import { CACHE_TOOLS, type CacheTool } from './cache-plan.js';
import { holdForCollection, liveUsers } from './cache-users.js';

/**
 * 10 GiB: enough for the caches of a few dozen projects to stay warm — this repository's 179
 * installed packages take 142 MiB in npm's cache, so an npm cache grows by 0.1–0.5 GiB per project
 * of this size; Go's build cache and Cargo's registry grow by a similar order per module or
 * workspace — and small beside the worktrees it saves downloads for (each holds its own
 * node_modules). A machine with less room sets a lower limit (`--cache-limit-gib`).
 */
export const DEFAULT_CACHE_LIMIT_BYTES = 10 * 1024 ** 3;

/** The prefix of a folder being removed: renamed away first, so it is never seen half gone. */
const REMOVING = '.removing-';

export interface CacheGcOptions {
  readonly home: HomePaths;
  readonly limitBytes: number;
  readonly dryRun: boolean;
}

/** `removed`; `would-remove` in a dry run; `kept`: it fits under the limit, or it could not go (with why). */
export type CacheAction = 'removed' | 'would-remove' | 'kept';

export interface CacheEntry {
  readonly tool: CacheTool;
  readonly path: string;
  readonly bytes: number;
  /** When anything in it (the folder itself included) was last written, ISO 8601. */
  readonly writtenAt: string;
  readonly action: CacheAction;
  readonly why?: string;
}

export interface CacheGcReport {
  readonly dryRun: boolean;
  readonly limitBytes: number;
  /** Bytes of every tool's folder before anything was removed. */
  readonly totalBytes: number;
  /** Each tool's folder that exists, written longest ago first. */
  readonly entries: readonly CacheEntry[];
  readonly reclaimedBytes: number;
  /** Why nothing was removed though the caches are over the limit (in use, another gc running). */
  readonly skipped?: string;
}

/** Measures the shared caches and removes (or, dry, reports) the oldest tool folders over the limit. */
export async function collectCaches({ home, limitBytes, dryRun }: CacheGcOptions): Promise<CacheGcReport> {
  const root = home.caches;
  if (!dryRun) removeLeftovers(root);
  const measured = await Promise.all(
    CACHE_TOOLS.map(async (tool) => ({ tool, path: join(root, tool), ...(await treeUsage(join(root, tool))) })),
  );
  const present = measured.filter((entry) => entry.newestMs > 0).sort((a, b) => a.newestMs - b.newestMs);
  const totalBytes = present.reduce((sum, entry) => sum + entry.bytes, 0);
  const chosen = new Set<CacheTool>();
  let left = totalBytes;
  for (const entry of present) {
    if (left <= limitBytes) break;
    chosen.add(entry.tool);
    left -= entry.bytes;
  }
  const describe = (entry: (typeof present)[number], action: CacheAction, why?: string): CacheEntry => ({
    tool: entry.tool,
    path: entry.path,
    bytes: entry.bytes,
    writtenAt: new Date(entry.newestMs).toISOString(),
    action,
    ...(why !== undefined && { why }),
  });
  const report = (entries: CacheEntry[], skipped?: string): CacheGcReport => ({
    dryRun,
    limitBytes,
    totalBytes,
    entries,
    reclaimedBytes: entries.filter((entry) => entry.action !== 'kept').reduce((sum, entry) => sum + entry.bytes, 0),
    ...(skipped !== undefined && { skipped }),
  });
  const keptAll = (why?: string) =>
    present.map((entry) => describe(entry, 'kept', chosen.has(entry.tool) ? why : undefined));
  if (chosen.size === 0) return report(keptAll());
  if (dryRun) {
    const users = liveUsers(root, false);
    const note = users > 0 ? `${inUse(users)} now: a real run would wait for none` : undefined;
    return report(
      present.map((entry) => describe(entry, chosen.has(entry.tool) ? 'would-remove' : 'kept')),
      note,
    );
  }
  const hold = holdForCollection(root);
  if ('busy' in hold) return report(keptAll('another gc is removing caches'), 'another gc is removing caches');
  if ('inUse' in hold) return report(keptAll(inUse(hold.inUse)), inUse(hold.inUse));
  try {
    return report(
      present.map((entry) => (chosen.has(entry.tool) ? removeOne(entry, root, describe) : describe(entry, 'kept'))),
    );
  } finally {
    hold.release();
  }
}

function removeOne<T extends { tool: CacheTool; path: string }>(
  entry: T,
  root: string,
  describe: (entry: T, action: CacheAction, why?: string) => CacheEntry,
): CacheEntry {
  const away = join(root, `${REMOVING}${entry.tool}-${Date.now()}`);
  try {
    renameSync(entry.path, away);
  } catch (error) {
    return describe(entry, 'kept', describeError(error));
  }
  try {
    removeTree(away);
  } catch (error) {
    return describe(entry, 'removed', `moved out of use, but not all deleted: ${describeError(error)}`);
  }
  return describe(entry, 'removed');
}

/** Deletes what an earlier collection renamed away and could not finish deleting (it was stopped). */
function removeLeftovers(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(REMOVING)) continue;
    try {
      removeTree(join(root, name));
    } catch {
      // Left for the next collection; it is out of every tool's way already.
    }
  }
}

function inUse(users: number): string {
  return `in use by ${users} running harness turn${users === 1 ? '' : 's'}`;
}
