/**
 * The scenario file: what the simulator `sim` does, step by step, and how its run ends. YAML, or
 * JSON when the file name ends in `.json`, validated strictly: an unknown key or a step with two actions is an
 * error naming its place, so a typo never silently changes a run. docs/simulator.md is the reference.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, normalize } from 'node:path';
import { z } from 'zod';
import { parseDuration } from '../../core/duration.js';
import { fileProblem } from '../../core/errors.js';

/** A scenario that cannot be read, parsed or validated. The message is one line. */
export class ScenarioError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScenarioError';
  }
}

/**
 * A value written either as a string or as an object, each form validated on its own, so an error
 * names the real problem instead of zod's "Invalid input" for a union.
 */
function stringOr<S extends z.ZodType, O extends z.ZodType>(text: S, object: O) {
  return z.unknown().transform((value, ctx): z.output<S> | z.output<O> => {
    const parsed = (typeof value === 'string' ? text : object).safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });
}

/** `0` or a duration as task files write them (`20ms`, `1.5s`, `2h`; a bare number is seconds), in ms. */
const duration = z.union([z.string(), z.number()]).transform((value, ctx): number => {
  if (value === 0 || value === '0') return 0;
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'not a duration (examples: 0, 20ms, 1.5s, 2h)' });
    return z.NEVER;
  }
  return ms;
});

/** A path relative to the worktree that stays inside it. */
const relativePath = z
  .string()
  .min(1)
  .refine((path) => !isAbsolute(path) && !normalize(path).startsWith('..'), {
    message: 'must be a relative path inside the worktree',
  });

const planItem = z.strictObject({
  text: z.string().min(1),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().min(1).optional(),
});
export type PlanItem = z.infer<typeof planItem>;

/** Quota variants: `subscription`, `weekly`, `credit` are Claude Code's; the other two are Codex's. */
export const QUOTA_VARIANTS = ['subscription', 'weekly', 'credit', 'insufficient_quota', 'usage_limit'] as const;
const quotaVariant = z.enum(QUOTA_VARIANTS);
export type QuotaVariant = z.infer<typeof quotaVariant>;

const endName = z.enum(['complete', 'quota', 'rate_limit', 'overloaded', 'auth', 'crash', 'hang']);

/** The refinement's message; it runs only when the keys themselves are valid, so one problem is said once. */
const exactlyOneKey = (what: string, keys: readonly string[]) => ({
  message: `${what} has exactly one of: ${keys.join(', ')}`,
  when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0,
});

const endObject = z
  .strictObject({
    complete: z
      .strictObject({ message: z.string().min(1).optional(), utilization: z.number().gt(0).lt(1).optional() })
      .optional(),
    quota: stringOr(
      quotaVariant,
      z.strictObject({ kind: quotaVariant.optional(), resetsIn: duration.optional() }),
    ).optional(),
    hang: z.strictObject({ ignoreInterrupt: z.boolean().default(false), child: z.boolean().default(false) }).optional(),
  })
  .refine((end) => Object.keys(end).length === 1, exactlyOneKey('an end object', ['complete', 'quota', 'hang']));

type EndData = z.infer<typeof endName> | z.infer<typeof endObject>;

/** How a run ends. Variants a harness does not have fall back to its default (docs/simulator.md). */
export type Ending =
  | { kind: 'complete'; message?: string; utilization?: number }
  | { kind: 'quota'; variant?: QuotaVariant; resetsInMs?: number }
  | { kind: 'rate_limit' | 'overloaded' | 'auth' | 'crash' }
  | { kind: 'hang'; ignoreInterrupt: boolean; child: boolean };

function toEnding(end: EndData): Ending {
  if (typeof end === 'string') {
    return end === 'hang' ? { kind: 'hang', ignoreInterrupt: false, child: false } : { kind: end };
  }
  if (end.complete !== undefined) {
    const { message, utilization } = end.complete;
    return {
      kind: 'complete',
      ...(message !== undefined && { message }),
      ...(utilization !== undefined && { utilization }),
    };
  }
  if (end.quota !== undefined) {
    const quota = typeof end.quota === 'string' ? { kind: end.quota } : end.quota;
    return {
      kind: 'quota',
      ...(quota.kind !== undefined && { variant: quota.kind }),
      ...(quota.resetsIn !== undefined && { resetsInMs: quota.resetsIn }),
    };
  }
  const hang = end.hang ?? { ignoreInterrupt: false, child: false };
  return { kind: 'hang', ...hang };
}

const ending = stringOr(endName, endObject).transform(toEnding);

const STEP_KEYS = ['plan', 'say', 'write', 'edit', 'run', 'commit', 'push', 'pr', 'garbage', 'end'] as const;

const stepObject = z
  .strictObject({
    plan: z.array(planItem).min(1).optional(),
    say: z.string().min(1).optional(),
    write: z.strictObject({ path: relativePath, content: z.string() }).optional(),
    edit: z.strictObject({ path: relativePath, find: z.string().min(1), replace: z.string() }).optional(),
    run: stringOr(
      z.string().min(1),
      z.strictObject({ command: z.string().min(1), description: z.string().optional() }),
    ).optional(),
    commit: z.string().trim().min(1).optional(),
    push: z
      .strictObject({ remote: z.string().min(1).optional() })
      .nullable()
      .optional(),
    pr: z
      .strictObject({ title: z.string().min(1), body: z.string().default(''), base: z.string().min(1).optional() })
      .optional(),
    garbage: z.int().min(1).max(1000).optional(),
    end: ending.optional(),
  })
  .refine((step) => Object.keys(step).length === 1, exactlyOneKey('a step', STEP_KEYS));

/** One step of a scenario, tagged by its action. */
export type Step =
  | { kind: 'plan'; items: PlanItem[] }
  | { kind: 'say'; text: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'edit'; path: string; find: string; replace: string }
  | { kind: 'run'; command: string; description?: string }
  | { kind: 'commit'; message: string }
  | { kind: 'push'; remote: string }
  | { kind: 'pr'; title: string; body: string; base?: string }
  | { kind: 'garbage'; lines: number }
  | { kind: 'end'; ending: Ending };

function toStep(step: z.infer<typeof stepObject>): Step {
  if (step.plan !== undefined) return { kind: 'plan', items: step.plan };
  if (step.say !== undefined) return { kind: 'say', text: step.say };
  if (step.write !== undefined) return { kind: 'write', ...step.write };
  if (step.edit !== undefined) return { kind: 'edit', ...step.edit };
  if (step.run !== undefined) {
    return typeof step.run === 'string'
      ? { kind: 'run', command: step.run }
      : {
          kind: 'run',
          command: step.run.command,
          ...(step.run.description !== undefined && { description: step.run.description }),
        };
  }
  if (step.commit !== undefined) return { kind: 'commit', message: step.commit };
  if (step.pr !== undefined) {
    return {
      kind: 'pr',
      title: step.pr.title,
      body: step.pr.body,
      ...(step.pr.base !== undefined && { base: step.pr.base }),
    };
  }
  if (step.garbage !== undefined) return { kind: 'garbage', lines: step.garbage };
  if (step.end !== undefined) return { kind: 'end', ending: step.end };
  // `push` is the only key left; its value may be null (`push:` with nothing after it).
  return { kind: 'push', remote: step.push?.remote ?? 'origin' };
}

const steps = z.array(stepObject.transform(toStep)).min(1);

/**
 * The scenario file as written; `Scenario` is what `loadScenario` returns. `turns` gives follow-up
 * turns work of their own: the first entry whose `when` occurs in the prompt is played instead of
 * `steps` (a follow-up message, or a handoff prompt that carries it).
 */
export const ScenarioFile = z.strictObject({
  pace: duration.default(0),
  model: z.string().min(1).optional(),
  steps,
  turns: z.array(z.strictObject({ when: z.string().min(1), steps })).optional(),
});

/** Steps played when the prompt contains `when`. */
export interface TurnScript {
  readonly when: string;
  readonly steps: readonly Step[];
}

export interface Scenario {
  /** Milliseconds to wait before each step. */
  readonly paceMs: number;
  readonly model?: string;
  readonly steps: readonly Step[];
  readonly turns: readonly TurnScript[];
}

/** The steps to play for `prompt`: those of the first turn script whose `when` it contains, else `steps`. */
export function stepsFor(scenario: Scenario, prompt: string): readonly Step[] {
  return scenario.turns.find((turn) => prompt.includes(turn.when))?.steps ?? scenario.steps;
}

/** Validates parsed scenario data; throws ScenarioError naming each problem's place. */
export function parseScenario(data: unknown, source: string): Scenario {
  const parsed = ScenarioFile.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      return `${where}: ${issue.message}`;
    });
    throw new ScenarioError(`scenario ${source} is invalid: ${problems.join('; ')}`);
  }
  const { pace, model, steps: played, turns } = parsed.data;
  return { paceMs: pace, steps: played, turns: turns ?? [], ...(model !== undefined && { model }) };
}

/** Reads and validates a scenario file; throws ScenarioError (one line) when it cannot. */
export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(`cannot read scenario ${path}: ${fileProblem(error)}`, { cause: error });
  }
  const json = path.endsWith('.json');
  let data: unknown;
  try {
    // JSON needs no YAML parser: loading `yaml` is a fifth of the simulator's start-up time.
    data = json ? JSON.parse(text) : (await import('yaml')).parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ScenarioError(`scenario ${path} is not valid ${json ? 'JSON' : 'YAML'}: ${reason}`, { cause: error });
  }
  return parseScenario(data, path);
}
