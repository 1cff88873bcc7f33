/**
 * The task file: what to do and how. YAML on disk, validated by `TaskFile` (its JSON schema is
 * published at schemas/task.schema.json, generated from this schema:
 * `node bin/harmflow.js schema > schemas/task.schema.json`).
 * `resolveTask` turns a validated file into the normalized `Task` the engine runs.
 */
import { z } from 'zod';
import { DURATION_PATTERN, formatDuration, longerThanMaximum, parseDuration } from './duration.js';
import { GatesConfig, type GatesSettings } from './gates-config.js';
import { HARNESS_NAMES, HarnessName, isSimulatedHarness, Outcome, SIMULATED_HARNESSES } from './outcome.js';
import { isRepositoryUrl } from './repository-url.js';

const harnessName = z.enum(HARNESS_NAMES, {
  error: (issue) => `unknown harness ${JSON.stringify(issue.input)} (known: ${HARNESS_NAMES.join(', ')})`,
});

/** One link of the harness chain, in its long form. */
const harnessSpecFields = z.strictObject({
  harness: harnessName,
  model: z.string().min(1).optional().describe('model passed to the CLI (--model / -m)'),
  args: z.array(z.string()).optional().describe('extra arguments appended to the CLI command line'),
  env: z.record(z.string(), z.string()).optional().describe('environment set for the CLI (literal values)'),
  passEnv: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/))
    .optional()
    .describe('names of host environment variables passed through to the CLI (credentials, by explicit choice)'),
  simulate: z
    .string()
    .min(1)
    .optional()
    .describe('play this harness with the built-in simulator `sim`, from this scenario file'),
  account: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'use letters, digits, ".", "_" or "-" (at most 64)')
    .optional()
    .describe(
      'the account (credentials, plan) this link runs on, e.g. "work": the quota registry tracks each account of a harness on its own',
    ),
});
export const HarnessSpecObject = harnessSpecFields.refine(
  (spec) => spec.simulate === undefined || isSimulatedHarness(spec.harness),
  { message: `the simulator plays only ${SIMULATED_HARNESSES.join(', ')}`, path: ['simulate'] },
);
export type HarnessSpecObject = z.infer<typeof HarnessSpecObject>;

const harnessSpec = z.union([harnessName, HarnessSpecObject]);

const HOUR_MS = 3_600_000;

/**
 * 720 h (30 days): the longest `timeout`. Long enough for a task that waits out a weekly quota reset
 * or two; beyond it a deadline is a typo (`600h` for `600s`), and `1e308` would overflow the
 * deadline's date. A deadline past Node's timer limit (2^31-1 ms, 24.8 days) is armed by
 * core/long-timer.ts.
 */
export const MAX_TIMEOUT_MS = 720 * HOUR_MS;

/**
 * 1 h: the longest interrupt budget (a task's `interruptBudget`, the services' `--interrupt-budget`).
 * The harness CLIs exit within a second of SIGINT; one still running an hour after it is stuck, not
 * saving, and a longer budget would only hold a cancel, a switch or a stop that long.
 */
export const MAX_INTERRUPT_BUDGET_MS = HOUR_MS;

/**
 * 720 h: the longest `maxWait` and `quotaCoolDown`. A wait for a reset cannot outlast the deadline,
 * which is at most MAX_TIMEOUT_MS away; and the longest quota window the harnesses' plans have is a
 * month, so a harness counted out for longer would be kept out past its own reset.
 */
export const MAX_QUOTA_WAIT_MS = MAX_TIMEOUT_MS;

/** What a value that is not a duration is told (the same words for text and numbers). */
const NOT_A_DURATION = 'not a duration (examples: 45m, 1h30m, 90s, 600)';

/**
 * A duration as task files write it (duration.ts), of at most `maxMs`: text matching
 * DURATION_PATTERN (published as the JSON schema's `pattern`, so editors check the form too) or a
 * number of seconds above zero. The maximum is checked here only: a JSON schema pattern cannot
 * compare sums, so the published description says it in words.
 */
const duration = (maxMs: number) =>
  z
    .union([z.string().regex(new RegExp(DURATION_PATTERN), NOT_A_DURATION), z.number().gt(0, NOT_A_DURATION)])
    .check((context) => {
      const ms = parseDuration(context.value) ?? 0;
      if (ms > maxMs)
        context.issues.push({ code: 'custom', message: longerThanMaximum(context.value, maxMs), input: context.value });
    });

/** A duration field's description: what it is, then its form and its maximum (which no pattern can say). */
function durationText(meaning: string, maxMs: number): string {
  return `${meaning}; a duration (45m, 1h30m, 90s, 500ms, 2d, or seconds) of at most ${formatDuration(maxMs).replaceAll(' ', '')}`;
}

/** Every built-in gate on, nothing custom: the gates of a task that names none. */
const DEFAULT_GATES = GatesConfig.parse({});

/** One hour: a harness that ran out without saying when it resets is tried again after this. */
export const DEFAULT_QUOTA_COOL_DOWN_MS = 3_600_000;

const switchable = Outcome.exclude(['completed', 'canceled', 'timed_out', 'switched']);
/** The outcomes `failoverOn` may name: those that may switch besides `quota_exhausted`. */
export const FAILOVER_OUTCOMES = switchable.options.filter((outcome) => outcome !== 'quota_exhausted');

/**
 * Where the harnesses run: `bwrap`, in the OS sandbox (bubblewrap; the default, and where bubblewrap
 * is missing the execution says so and runs without it), or `none`, with the user's full access.
 */
export const SANDBOX_CHOICES = ['bwrap', 'none'] as const;
export type SandboxChoice = (typeof SANDBOX_CHOICES)[number];

/**
 * Where the harnesses' package and build caches go (docs/worktrees.md, "Caches"): `shared`, folders
 * under `HARMFLOW_HOME/caches/` every execution uses (the default: a second execution finds what the
 * first downloaded); `private`, the same variables pointing at folders of this execution alone,
 * removed with its worktree (for tasks whose agents are not trusted with what other executions run);
 * `none`, no variable set: the tools' own defaults, in the attempt's private home.
 */
export const CACHE_MODES = ['shared', 'private', 'none'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

/** The task file as written. Unknown keys are errors, so a typo never silently changes behaviour. */
export const TaskFile = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'use letters, digits, ".", "_" or "-" (at most 64)')
    .describe('short name; part of the branch name harmflow/<name>-<id>'),
  repo: z.string().min(1).default('.').describe('a git repository, relative to the task file'),
  baseRef: z.string().min(1).default('HEAD').describe('the ref the execution branch starts from'),
  prompt: z.string().trim().min(1).describe('what the agent is asked to do'),
  harness: harnessSpec.describe('the primary harness'),
  fallbacks: z.array(harnessSpec).default([]).describe('the fallback chain, in order'),
  maxSwitches: z
    .int()
    .min(0)
    .optional()
    .describe('how many switches an execution may make (default: number of fallbacks)'),
  timeout: duration(MAX_TIMEOUT_MS)
    .default('30m')
    .describe(durationText('one deadline for the whole execution, across every attempt', MAX_TIMEOUT_MS)),
  interruptBudget: duration(MAX_INTERRUPT_BUDGET_MS)
    .optional()
    .describe(
      durationText(
        'how long an interrupted harness (cancel, switch, deadline) may take to exit before it is killed',
        MAX_INTERRUPT_BUDGET_MS,
      ),
    ),
  failoverOn: z
    .array(switchable)
    .default([])
    .describe('outcomes that switch harness besides quota_exhausted (e.g. rate_limited, overloaded)'),
  waitForReset: z
    .boolean()
    .default(false)
    .describe('when every harness of the chain is out of quota, wait for the earliest reset instead of failing'),
  maxWait: duration(MAX_QUOTA_WAIT_MS)
    .optional()
    .describe(
      durationText(
        'the longest such wait (waits for a reset even without waitForReset); a later reset ends the execution',
        MAX_QUOTA_WAIT_MS,
      ),
    ),
  quotaCoolDown: duration(MAX_QUOTA_WAIT_MS)
    .default(`${DEFAULT_QUOTA_COOL_DOWN_MS / 1000}s`)
    .describe(
      durationText('how long a harness that ran out without saying when it resets counts as out', MAX_QUOTA_WAIT_MS),
    ),
  countManualSwitches: z
    .boolean()
    .default(false)
    .describe('whether switches asked by hand (harmflow switch) count against maxSwitches'),
  switchAtUtilization: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe(
      'switch to the next harness at a turn boundary once the harness reports this share of its limit used (e.g. 0.95), before it runs out',
    ),
  gates: GatesConfig.default(DEFAULT_GATES).describe(
    'checks around every tool call of every attempt, whichever harness runs it (docs/gates.md)',
  ),
  sandbox: z
    .enum(SANDBOX_CHOICES)
    .default('bwrap')
    .describe(
      'bwrap: each harness runs in the OS sandbox, writing only its worktree, its home and the repository\'s git directories (where bubblewrap is missing, without it, said in the timeline); none: with the user\'s full access (docs/gates.md, "The sandbox")',
    ),
  caches: z
    .enum(CACHE_MODES)
    .default('shared')
    .describe(
      'shared: npm, pnpm, yarn, pip, Go, Cargo and Bazel caches in folders under HARMFLOW_HOME/caches that every execution uses; private: the same, in folders of this execution alone, removed with its worktree; none: the tools\' own defaults (docs/worktrees.md, "Caches")',
    ),
});
export type TaskFile = z.infer<typeof TaskFile>;
/** A task file as written, before defaults: what a client may send. */
export type TaskFileInput = z.input<typeof TaskFile>;

/**
 * Who the agent's commits are by: the four values git reads from GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL,
 * GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL. Resolved when the task is submitted, never written in
 * a task file (docs/task-file.md, "Git identity").
 */
export const GitIdentity = z.object({
  authorName: z.string(),
  authorEmail: z.string(),
  committerName: z.string(),
  committerEmail: z.string(),
});
export type GitIdentity = Readonly<z.infer<typeof GitIdentity>>;

/** One link of the chain, normalized; paths are absolute. */
export interface HarnessSpec {
  readonly harness: HarnessName;
  readonly model?: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly passEnv: readonly string[];
  readonly simulate?: string;
  /** The account this link runs on (quota registry), when the task names one. */
  readonly account?: string;
}

/** A validated, normalized task: what the engine runs. */
export interface Task {
  readonly name: string;
  readonly repo: string;
  readonly baseRef: string;
  readonly prompt: string;
  readonly chain: readonly HarnessSpec[];
  readonly maxSwitches: number;
  readonly timeoutMs: number;
  readonly interruptBudgetMs?: number;
  readonly switchOn: ReadonlySet<Outcome>;
  /** The gates around every attempt's tool calls. */
  readonly gates: GatesSettings;
  /**
   * When every harness of the chain is out of quota: wait for the earliest reset (at most `maxMs`
   * when given), or `false` to end the execution.
   */
  readonly waitForReset: { readonly maxMs?: number } | false;
  /** How long a harness that ran out without a reset time counts as out, in ms. */
  readonly quotaCoolDownMs: number;
  /**
   * The share of a limit (0–1] past which the execution switches at the next turn boundary, and a
   * new attempt prefers a harness below it; absent: only running out switches.
   */
  readonly switchAtUtilization?: number;
  /** Whether switches asked by hand count against `maxSwitches`. */
  readonly countManualSwitches: boolean;
  /**
   * The git identity every harness process gets as GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL,
   * GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL, under what its link's own `env`/`passEnv` set (the
   * link wins). A harness runs with a private HOME, so the user's git config is out of its sight:
   * without this its commits fail (`Author identity unknown`). It belongs to the task, not to a
   * link, so a link added by a switch by hand gets it too. Set at submit (`withGitIdentity`):
   * locally the identity `git commit` has in the user's terminal (execution/preflight.ts), on a
   * cluster the primary link's own (cluster/cluster-executions.ts). Absent on a task just read from
   * its file, and on tasks stored before it existed.
   */
  readonly gitIdentity?: GitIdentity;
  /** Where the harnesses run (`SandboxChoice`); absent: `bwrap`, the default (and tasks stored before it existed). */
  readonly sandbox?: SandboxChoice;
  /** Where the harnesses' package and build caches go (`CacheMode`); absent: `shared`, the default (and tasks stored before it existed). */
  readonly caches?: CacheMode;
}

/** Normalizes a validated task file; `resolvePath` makes file-relative paths absolute. */
export function resolveTask(file: TaskFile, resolvePath: (path: string) => string): Task {
  const chain = [file.harness, ...file.fallbacks].map((spec): HarnessSpec => {
    const long = typeof spec === 'string' ? { harness: spec } : spec;
    return {
      harness: HarnessName.parse(long.harness),
      ...(long.model !== undefined && { model: long.model }),
      args: long.args ?? [],
      env: long.env ?? {},
      passEnv: long.passEnv ?? [],
      ...(long.simulate !== undefined && { simulate: resolvePath(long.simulate) }),
      ...(long.account !== undefined && { account: long.account }),
    };
  });
  return {
    name: file.name,
    repo: isRepositoryUrl(file.repo) ? file.repo : resolvePath(file.repo),
    baseRef: file.baseRef,
    prompt: file.prompt,
    chain,
    maxSwitches: file.maxSwitches ?? file.fallbacks.length,
    timeoutMs: parseDuration(file.timeout) ?? 0,
    ...(file.interruptBudget !== undefined && { interruptBudgetMs: parseDuration(file.interruptBudget) ?? 0 }),
    switchOn: new Set<Outcome>(['quota_exhausted', ...file.failoverOn]),
    gates: file.gates,
    waitForReset:
      file.maxWait !== undefined ? { maxMs: parseDuration(file.maxWait) ?? 0 } : file.waitForReset ? {} : false,
    quotaCoolDownMs: parseDuration(file.quotaCoolDown) ?? 0,
    ...(file.switchAtUtilization !== undefined && { switchAtUtilization: file.switchAtUtilization }),
    countManualSwitches: file.countManualSwitches,
    ...(file.sandbox !== 'bwrap' && { sandbox: file.sandbox }),
    ...(file.caches !== 'shared' && { caches: file.caches }),
  };
}

/**
 * A resolved task as the store keeps it (`TaskRecord.definition`: the Task with `switchOn` as an
 * array). Parsing it back gives the Task an execution was created with, for the service to carry the
 * execution on after a restart.
 */
export const StoredTask = z.object({
  name: z.string(),
  repo: z.string(),
  baseRef: z.string(),
  prompt: z.string(),
  chain: z
    .array(
      z.object({
        harness: HarnessName,
        model: z.string().optional(),
        args: z.array(z.string()),
        env: z.record(z.string(), z.string()),
        passEnv: z.array(z.string()),
        simulate: z.string().optional(),
        account: z.string().optional(),
      }),
    )
    .min(1),
  maxSwitches: z.int().min(0),
  timeoutMs: z.number().min(0),
  interruptBudgetMs: z.number().min(0).optional(),
  switchOn: z.array(Outcome),
  /** Absent in tasks stored before gates existed: they get the defaults. */
  gates: GatesConfig.optional(),
  /** Absent in tasks stored before quota scheduling: no wait, a one-hour cool-down. */
  waitForReset: z.union([z.literal(false), z.object({ maxMs: z.number().min(0).optional() })]).optional(),
  quotaCoolDownMs: z.number().min(0).optional(),
  switchAtUtilization: z.number().gt(0).max(1).optional(),
  countManualSwitches: z.boolean().optional(),
  /** Absent in tasks stored before issue 20: their harnesses get only what their links' env give. */
  gitIdentity: GitIdentity.optional(),
  /** Absent in tasks stored before issue 22: they run sandboxed, as a new task does by default. */
  sandbox: z.enum(SANDBOX_CHOICES).optional(),
  /** Absent in tasks stored before issue 26, and in tasks that share the caches (the default). */
  caches: z.enum(CACHE_MODES).optional(),
});

/** Link `index` of `chain` as the user knows it: `codex (the primary harness)`, `claude-code (fallback 2)`. */
export function linkLabel(chain: readonly HarnessSpec[], index: number): string {
  return `${chain[index]?.harness} (${index === 0 ? 'the primary harness' : `fallback ${index}`})`;
}

/** `task` with the git identity its harnesses' commits carry (Task.gitIdentity). */
export function withGitIdentity(task: Task, gitIdentity: GitIdentity): Task {
  return { ...task, gitIdentity };
}

/** The store's JSON form of a task. */
export function storedTask(task: Task): Record<string, unknown> {
  return { ...task, switchOn: [...task.switchOn] };
}

/** Parses a stored definition back into a Task; throws a ZodError when it does not match. */
export function taskFromStore(definition: unknown): Task {
  const stored = StoredTask.parse(definition);
  const chain = stored.chain.map(
    (link): HarnessSpec => ({
      harness: link.harness,
      ...(link.model !== undefined && { model: link.model }),
      args: link.args,
      env: link.env,
      passEnv: link.passEnv,
      ...(link.simulate !== undefined && { simulate: link.simulate }),
      ...(link.account !== undefined && { account: link.account }),
    }),
  );
  return {
    name: stored.name,
    repo: stored.repo,
    baseRef: stored.baseRef,
    prompt: stored.prompt,
    chain,
    maxSwitches: stored.maxSwitches,
    timeoutMs: stored.timeoutMs,
    ...(stored.interruptBudgetMs !== undefined && { interruptBudgetMs: stored.interruptBudgetMs }),
    switchOn: new Set(stored.switchOn),
    gates: stored.gates ?? DEFAULT_GATES,
    waitForReset:
      stored.waitForReset === undefined || stored.waitForReset === false
        ? false
        : { ...(stored.waitForReset.maxMs !== undefined && { maxMs: stored.waitForReset.maxMs }) },
    quotaCoolDownMs: stored.quotaCoolDownMs ?? DEFAULT_QUOTA_COOL_DOWN_MS,
    ...(stored.switchAtUtilization !== undefined && { switchAtUtilization: stored.switchAtUtilization }),
    countManualSwitches: stored.countManualSwitches ?? false,
    ...(stored.gitIdentity !== undefined && { gitIdentity: stored.gitIdentity }),
    ...(stored.sandbox !== undefined && { sandbox: stored.sandbox }),
    ...(stored.caches !== undefined && { caches: stored.caches }),
  };
}
