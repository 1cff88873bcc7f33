/**
 * The Workbench's task form as data, between the values its inputs hold and the task file they
 * make (the JSON `POST /api/executions` takes, the YAML a person copies): `taskFromForm` writes the
 * form's values over a task, keeping what the form has no input for (gates, a link's `env`,
 * `simulate`, …), so a key written in the YAML view survives an edit of the form; `formFromTask`
 * reads a task (as the YAML view parsed it) back into the values; `fieldOf` says beside which input a
 * problem's place (`fallbacks[1].harness`) is shown. An empty input leaves its key out, so the
 * default holds and the YAML shows only what was chosen. Text that is not a number stays text in a
 * number's key, for the schema to name the problem. No Node, no DOM.
 */

/** A task file's content as data: a JSON object. */
export type TaskData = Record<string, unknown>;

/** One link of the harness chain as the form shows it: the harness, and the model (`''`: its default). */
export interface LinkValues {
  readonly harness: string;
  readonly model: string;
}

/** What the form's inputs hold. */
export interface TaskFormValues {
  readonly name: string;
  readonly prompt: string;
  readonly repo: string;
  readonly baseRef: string;
  /** The primary harness, then the fallbacks, in order. */
  readonly chain: readonly LinkValues[];
  readonly timeout: string;
  readonly maxSwitches: string;
  readonly interruptBudget: string;
  readonly failoverOn: readonly string[];
  readonly waitForReset: boolean;
  readonly maxWait: string;
  readonly quotaCoolDown: string;
  readonly countManualSwitches: boolean;
  readonly switchAtUtilization: string;
  /** `''`: the default (`bwrap`). */
  readonly sandbox: string;
}

/** The task file's keys that have a text input, in the schema's order. */
const TEXT_KEYS = ['name', 'repo', 'baseRef', 'prompt'] as const;
/** The keys after the chain, in the schema's order: what the form writes and in which order. */
const AFTER_CHAIN = [
  'maxSwitches',
  'timeout',
  'interruptBudget',
  'failoverOn',
  'waitForReset',
  'maxWait',
  'quotaCoolDown',
  'countManualSwitches',
  'switchAtUtilization',
  'sandbox',
] as const;

/** The form's values written over `base` (a task as last seen), in the schema's key order, the rest after. */
export function taskFromForm(values: TaskFormValues, base: TaskData): TaskData {
  const chain = values.chain.map((link, index) => linkOf(link, chainOf(base)[index]));
  const set: TaskData = {
    name: text(values.name),
    repo: text(values.repo),
    baseRef: text(values.baseRef),
    prompt: values.prompt.trim() === '' ? undefined : values.prompt,
    harness: chain[0],
    fallbacks: chain.length > 1 ? chain.slice(1) : undefined,
    maxSwitches: numberOr(values.maxSwitches),
    timeout: text(values.timeout),
    interruptBudget: text(values.interruptBudget),
    failoverOn: values.failoverOn.length > 0 ? [...values.failoverOn] : undefined,
    waitForReset: values.waitForReset || undefined,
    maxWait: text(values.maxWait),
    quotaCoolDown: text(values.quotaCoolDown),
    countManualSwitches: values.countManualSwitches || undefined,
    switchAtUtilization: numberOr(values.switchAtUtilization),
    sandbox: text(values.sandbox),
  };
  const task: TaskData = {};
  for (const [key, value] of Object.entries(set)) if (value !== undefined) task[key] = value;
  for (const [key, value] of Object.entries(base)) if (!(key in set)) task[key] = value;
  return task;
}

/** The values the form shows for `task`; a key the task leaves out shows empty (its default). */
export function formFromTask(task: TaskData): TaskFormValues {
  const shown = (key: string) => {
    const value = task[key];
    return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  };
  const [name, repo, baseRef, prompt] = TEXT_KEYS.map(shown) as [string, string, string, string];
  const failoverOn = task.failoverOn;
  return {
    name,
    repo,
    baseRef,
    prompt,
    chain: chainOf(task).map((link) => {
      const long = isObject(link) ? link : { harness: link };
      return { harness: String(long.harness ?? ''), model: typeof long.model === 'string' ? long.model : '' };
    }),
    timeout: shown('timeout'),
    maxSwitches: shown('maxSwitches'),
    interruptBudget: shown('interruptBudget'),
    failoverOn: Array.isArray(failoverOn) ? failoverOn.map(String) : [],
    waitForReset: task.waitForReset === true,
    maxWait: shown('maxWait'),
    quotaCoolDown: shown('quotaCoolDown'),
    countManualSwitches: task.countManualSwitches === true,
    switchAtUtilization: shown('switchAtUtilization'),
    sandbox: shown('sandbox'),
  };
}

/**
 * The form's field a problem at `path` is shown beside — a key's own name, `chain-N` for the chain's
 * link N (`harness` is link 0, `fallbacks[0]` link 1) — or undefined for a place the form has no
 * input for (`gates.custom[0].command`, an unknown field, the whole task): the YAML view shows those.
 */
export function fieldOf(path: string): string | undefined {
  const key = /^[A-Za-z]+/.exec(path)?.[0];
  if (key === 'harness') return 'chain-0';
  if (key === 'fallbacks') {
    const index = /^fallbacks\[(\d+)\]/.exec(path)?.[1];
    return index === undefined ? 'chain-0' : `chain-${Number(index) + 1}`;
  }
  return key !== undefined && ([...TEXT_KEYS, ...AFTER_CHAIN] as readonly string[]).includes(key) ? key : undefined;
}

/** `task`'s links in order: `harness`, then each of `fallbacks`. */
function chainOf(task: TaskData): unknown[] {
  const fallbacks = Array.isArray(task.fallbacks) ? task.fallbacks : [];
  return task.harness === undefined ? fallbacks : [task.harness, ...fallbacks];
}

/** A link in its short form (a name) unless it has a model or keys the form does not show (`base`'s). */
function linkOf(link: LinkValues, base: unknown): unknown {
  const long: TaskData = { ...(isObject(base) ? base : {}), harness: link.harness };
  if (link.model.trim() === '') delete long.model;
  else long.model = link.model.trim();
  return Object.keys(long).length === 1 ? link.harness : long;
}

function text(value: string): string | undefined {
  return value.trim() === '' ? undefined : value.trim();
}

/** A number where the text is one, the text where it is not (the schema names the problem), undefined when empty. */
function numberOr(value: string): number | string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

function isObject(value: unknown): value is TaskData {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
