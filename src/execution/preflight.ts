/**
 * Checks a task before anything is created: the repository and base ref exist, every harness of the
 * chain is installed (or simulated from a readable scenario). Each failure is a named error with one
 * line that names the problem; on failure nothing has been written.
 */
import { accessSync, constants } from 'node:fs';
import { HarnessNotInstalledError, TaskFileError } from '../core/errors.js';
import type { HarnessSpec, Task } from '../core/task.js';
import { getAdapter } from '../harnesses/registry.js';
import { findExecutable } from '../proc/which.js';
import { resolveRepository } from '../workspace/repository.js';

export interface Preflight {
  readonly repoRoot: string;
  readonly baseSha: string;
}

/** Validates `task` against this machine; `path` is the PATH harnesses will be started with. */
export async function preflight(task: Task, path: string): Promise<Preflight> {
  for (const link of task.chain) checkLink(link, path);
  const { root, baseSha } = await resolveRepository(task.repo, task.baseRef);
  return { repoRoot: root, baseSha };
}

/**
 * Checks that one link can start here: its CLI is on `path`, or its scenario file is readable when
 * it is simulated. Throws HarnessNotInstalledError or TaskFileError, one line.
 */
export function checkLink(link: HarnessSpec, path: string): void {
  if (link.simulate !== undefined) {
    try {
      accessSync(link.simulate, constants.R_OK);
    } catch (cause) {
      throw new TaskFileError(`scenario file for simulated ${link.harness} not found: ${link.simulate}`, { cause });
    }
    return;
  }
  const adapter = getAdapter(link.harness);
  if (!findExecutable(adapter.binary, path)) {
    throw new HarnessNotInstalledError(
      `harness ${link.harness} is not installed: "${adapter.binary}" is not on PATH (install ${adapter.npmPackage})`,
    );
  }
}
