/**
 * A task's `gates:` section, validated and normalized in one step: for the engine, the CLI and tests,
 * which may load zod. The gate runner uses `resolveSettings` (resolve.ts) on settings already valid.
 */
import { GatesConfig } from '../core/gates-config.js';
import { type ResolvedGates, resolveSettings } from './resolve.js';

export type { ResolvedGates } from './resolve.js';

/**
 * Validates a task's `gates:` section (absent: every built-in gate on) and normalizes it. Throws the
 * ZodError of an invalid section; the task-file loader turns it into its own error.
 */
export function resolveGates(section: unknown): ResolvedGates {
  return resolveSettings(GatesConfig.parse(section ?? {}));
}
