/**
 * Who drives each of a list of executions, as `harmflow ls` and `GET /api/executions?include=owners`
 * show it: the process its owner file names, checked now (owner-file.ts `ownerProcess`). An
 * execution nobody drives (ended, suspended, or never claimed) has no owner file and is left out.
 * Reads one small file per execution and, on this machine, /proc; nothing heavier.
 */
import type { HomePaths } from '../core/home.js';
import { type OwnerProcess, ownerProcess } from './owner-file.js';

/** Each execution of `ids` that has an owner file, mapped to the process it names. */
export function ownersOf(home: HomePaths, ids: readonly string[]): Record<string, OwnerProcess> {
  const owners: Record<string, OwnerProcess> = {};
  for (const id of ids) {
    const owner = ownerProcess(home.ownerFile(id));
    if (owner !== undefined) owners[id] = owner;
  }
  return owners;
}
