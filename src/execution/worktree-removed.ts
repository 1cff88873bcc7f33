/**
 * `runs/<execution>/worktree-removed.json`: the record that `harmflow gc` removed an execution's
 * worktree — when, which folder, the branch that keeps its commits and the commit it was at. Written
 * once, atomically, by the process that removed the worktree; read by anything that shows the
 * execution (`ls`, `show`, the API).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { HomePaths } from '../core/home.js';
import { writeJsonAtomic } from '../core/json-file.js';
import { GitSha } from '../workspace/git-sha.js';

export const WorktreeRemoved = z.strictObject({
  /** When the worktree was removed, ISO 8601. */
  removedAt: z.iso.datetime(),
  /** The folder that was removed. */
  path: z.string().min(1),
  /** The branch it had checked out; it stays in the repository. */
  branch: z.string().min(1),
  /** The commit the worktree was at. */
  head: GitSha,
});
export type WorktreeRemoved = z.infer<typeof WorktreeRemoved>;

/** Records the removal. */
export function writeWorktreeRemoved(home: HomePaths, execution: string, record: WorktreeRemoved): void {
  writeJsonAtomic(home.worktreeRemovedFile(execution), WorktreeRemoved.parse(record));
}

/**
 * The removal's record, or undefined when the worktree was never removed by gc. A file that does not
 * parse (edited by hand) reads as absent: the listings it feeds must not fail on it.
 */
export async function readWorktreeRemoved(home: HomePaths, execution: string): Promise<WorktreeRemoved | undefined> {
  let text: string;
  try {
    text = readFileSync(home.worktreeRemovedFile(execution), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return WorktreeRemoved.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
}
