/**
 * The execution's chain as switches by hand change it. A switch by hand names a harness (and maybe
 * a model), which need not be in the task's chain: its link goes into the execution's chain right
 * after the link running now, so the execution carries on there and, should that harness run out
 * too, goes on down the rest of the chain. The link copies the settings (env, passEnv, args,
 * simulation, account) of the task's first link of that harness, when there is one; otherwise it
 * passes through the host variables that CLI takes its credentials from (`credentialEnv`). Pure: the drive applies it as switches happen, recovery replays it from the `failover`
 * records.
 */
import type { HarnessSpec, Task } from '../core/task.js';
import type { EventRecord } from '../events/schema.js';
import { getAdapter } from '../harnesses/registry.js';
import type { SwitchRequest } from './control.js';

/** What a `failover` record of a switch by hand says of the link it inserted. */
export interface HandLink {
  readonly harness: HarnessSpec['harness'];
  readonly model?: string | undefined;
  /** The index in the task's chain of the link whose settings it copies; absent: none. */
  readonly like?: number | undefined;
}

/** The link a switch by hand asks for, as the `failover` record keeps it. */
export function handLinkOf(task: Task, request: SwitchRequest): HandLink {
  const like = task.chain.findIndex((link) => link.harness === request.harness);
  return {
    harness: request.harness,
    ...(request.model !== undefined && { model: request.model }),
    ...(like >= 0 && { like }),
  };
}

/** The chain link of `hand`: the copied link's settings, with the model asked for. */
export function specOf(task: Task, hand: HandLink): HarnessSpec {
  const base = (hand.like !== undefined && task.chain[hand.like]) || {
    harness: hand.harness,
    args: [],
    env: {},
    passEnv: getAdapter(hand.harness).credentialEnv,
  };
  return { ...base, harness: hand.harness, ...(hand.model !== undefined && { model: hand.model }) };
}

/** Where a link inserted after `current` goes (and runs): right after it, or at the end. */
export function insertAt(chain: readonly HarnessSpec[], current: number): number {
  return Math.min(current + 1, chain.length);
}

/**
 * The chain and the index of the link running, after the switches `records` tell, in order: a
 * switch by hand inserts its link; an automatic switch moves to its `toIndex` (records written
 * before it existed: the next link).
 */
export function replaySwitches(
  task: Task,
  records: readonly EventRecord[],
): { chain: HarnessSpec[]; chainIndex: number } {
  const chain = [...task.chain];
  let chainIndex = 0;
  for (const record of records) {
    if (record.type !== 'failover') continue;
    const { hand, toIndex } = record.data;
    if (hand !== undefined) {
      chainIndex = insertAt(chain, chainIndex);
      chain.splice(chainIndex, 0, specOf(task, hand));
    } else {
      chainIndex = Math.min(toIndex ?? chainIndex + 1, chain.length - 1);
    }
  }
  return { chain, chainIndex };
}
