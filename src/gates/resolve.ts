/**
 * The gates of an execution, normalized from the task's `gates:` section (src/core/gates-config.ts
 * validates it): each built-in gate is its options, or false when it is off. `resolveSettings` is
 * pure and imports no zod, so the gate runner (a process started around every tool call) uses it on
 * the settings the engine wrote to the attempt's gates file, and the engine on a stream without hooks.
 */
import type { CustomGate, GatesSettings } from '../core/gates-config.js';
import type { CommandsOptions } from './builtin/commands.js';
import type { WorkspaceOptions } from './builtin/workspace.js';

/** The gates of an execution, normalized: a gate is its options, or false when it is off. */
export interface ResolvedGates {
  readonly operations: boolean;
  readonly workspace: WorkspaceOptions | false;
  readonly commands: CommandsOptions | false;
  readonly nothingTwice: boolean;
  /** Run by the gate runner after the built-in gates allowed the call; `evaluate` does not run them. */
  readonly custom: readonly (Omit<CustomGate, 'failClosed'> & { readonly failClosed: boolean })[];
  readonly failClosed: boolean;
}

/** Normalizes validated settings. Pure; compiles the task's deny patterns (valid: the schema checked them). */
export function resolveSettings(gates: GatesSettings): ResolvedGates {
  const workspace = gates.workspace === true ? { allowPaths: [] } : gates.workspace;
  const commands =
    gates.commands === true
      ? { deny: [], allow: [] }
      : gates.commands && {
          deny: gates.commands.deny.map(({ pattern, message }) => ({ pattern: new RegExp(pattern), message })),
          allow: gates.commands.allow,
        };
  return {
    operations: gates.operations,
    workspace,
    commands,
    nothingTwice: gates.nothingTwice,
    custom: gates.custom.map((gate) => ({ ...gate, failClosed: gate.failClosed ?? gates.failClosed })),
    failClosed: gates.failClosed,
  };
}
