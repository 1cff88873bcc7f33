/**
 * The ids of the `commands` gate's default rules, in the order they are checked
 * (src/gates/builtin/commands.ts says why each is on). Their own module, without zod, because both
 * the task-file schema and the gate runner name them.
 */
export const COMMAND_RULES = [
  'force-push-base',
  'push-base',
  'recursive-delete',
  'pipe-to-shell',
  'hidden-command',
] as const;
export type CommandRuleId = (typeof COMMAND_RULES)[number];
