/**
 * Outcomes and states: the words the whole project uses for how an attempt ended and where an
 * execution is. Defined once here; every layer imports them.
 */
import { z } from 'zod';

/** How an attempt ended. Only `quota_exhausted` switches harness unless a task's `failoverOn` adds more. */
export const OUTCOMES = [
  'completed',
  'quota_exhausted',
  'rate_limited',
  'overloaded',
  'auth_failed',
  'failed',
  'timed_out',
  'canceled',
  'crashed',
  'switched',
] as const;
export const Outcome = z.enum(OUTCOMES);
export type Outcome = z.infer<typeof Outcome>;

/** Where an execution is. `waiting` means paused for a quota reset. */
export const STATES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'canceled', 'timed_out'] as const;
export const ExecutionState = z.enum(STATES);
export type ExecutionState = z.infer<typeof ExecutionState>;

/** The states an execution never leaves. */
export const FINAL_STATES: ReadonlySet<ExecutionState> = new Set(['succeeded', 'failed', 'canceled', 'timed_out']);

/** The states an execution is still open in (queued, running, waiting): every state not final. */
export const LIVE_STATES: readonly ExecutionState[] = STATES.filter((state) => !FINAL_STATES.has(state));

/** The harnesses HarmFlow drives. `sim` is not one of them: it plays one of these. */
export const HARNESS_NAMES = ['claude-code', 'codex', 'gemini', 'opencode'] as const;
export const HarnessName = z.enum(HARNESS_NAMES);
export type HarnessName = z.infer<typeof HarnessName>;

/** The harnesses the simulator `sim` can play (it prints their exact stream formats). */
export const SIMULATED_HARNESSES = ['claude-code', 'codex'] as const satisfies readonly HarnessName[];
export type SimulatedHarness = (typeof SIMULATED_HARNESSES)[number];

/** True when the simulator can play `harness`. */
export function isSimulatedHarness(harness: HarnessName): harness is SimulatedHarness {
  return (SIMULATED_HARNESSES as readonly HarnessName[]).includes(harness);
}
