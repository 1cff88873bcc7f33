/**
 * Checks a workflow definition before anything runs: step names unique and path-safe, each read
 * naming an earlier step, `source` items only with a source, declared parameters present, a provider
 * for every model step, sane concurrency. The first problem is one WorkflowDefinitionError naming
 * the step; nothing is created. Estimates must be numbers, 0 or more.
 */
import { EXIT, HarmflowError } from '../core/errors.js';
import type { Json } from '../store/resume-store.js';
import type { ModelProvider, StepDefinition, WorkflowDefinition } from './define.js';

/** A workflow definition that cannot run. Exit code 3, as an invalid task file. */
export class WorkflowDefinitionError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.invalidTask, options);
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Throws WorkflowDefinitionError for the first problem of `definition` run with `params`. */
export function validateDefinition(
  definition: WorkflowDefinition,
  params: Readonly<Record<string, Json>>,
  providers: Readonly<Record<string, ModelProvider>>,
): void {
  const fail = (message: string): never => {
    throw new WorkflowDefinitionError(`workflow ${JSON.stringify(definition.name)}: ${message}`);
  };
  if (!NAME.test(definition.name)) fail('its name must be letters, digits, ".", "_" or "-" (at most 64)');
  if (definition.steps.length === 0) fail('it has no steps');
  const seen = new Set<string>();
  for (const step of definition.steps) {
    const where = `step ${JSON.stringify(step.name)}`;
    if (!NAME.test(step.name)) fail(`${where}: a name must be letters, digits, ".", "_" or "-" (at most 64)`);
    if (seen.has(step.name)) fail(`${where} is defined twice`);
    if (typeof step.version !== 'string' || step.version.length === 0) fail(`${where} has no version`);
    for (const read of step.reads ?? []) {
      if (!seen.has(read.step)) fail(`${where} reads ${JSON.stringify(read.step)}, which is not an earlier step`);
    }
    if (step.items === 'source' && definition.source === undefined)
      fail(`${where} runs over the source, but there is none`);
    for (const name of step.params ?? []) {
      if (!(name in params)) fail(`${where} reads the parameter ${JSON.stringify(name)}, which the run does not have`);
    }
    const concurrency = step.concurrency ?? defaultConcurrency(step);
    if (!Number.isInteger(concurrency) || concurrency < 1) fail(`${where}: concurrency must be a positive integer`);
    const estimate = step.estimate;
    if (estimate !== undefined) {
      const figures = [estimate.secondsPerItem, estimate.fixedSeconds, estimate.inputTokens, estimate.outputTokens];
      if (figures.some((figure) => figure !== undefined && !(Number.isFinite(figure) && figure >= 0)))
        fail(`${where}: every estimate figure must be a number, 0 or more`);
    }
    if (step.kind === 'model' && providers[step.model.provider] === undefined) {
      fail(`${where} calls the model provider ${JSON.stringify(step.model.provider)}, which is not configured`);
    }
    seen.add(step.name);
  }
}

/**
 * Items at once when a step says nothing: code steps run one at a time (they are CPU work on this
 * process's one thread, so more would only interleave them); model and effect steps 4 (calls wait on
 * the network; 4 keeps well under common per-key rate limits until a step declares more).
 */
export function defaultConcurrency(step: StepDefinition): number {
  return step.concurrency ?? (step.kind === 'code' ? 1 : 4);
}

/**
 * Throws when the workflow has effect steps and no effects ledger is open to perform them through, or
 * agent steps and nowhere to run their executions.
 */
export function requireWhatStepsNeed(
  definition: WorkflowDefinition,
  open: { readonly ledger?: unknown; readonly agents?: unknown },
): void {
  const lacking = definition.steps.find(
    (step) =>
      (step.kind === 'effect' && open.ledger === undefined) || (step.kind === 'agent' && open.agents === undefined),
  );
  if (lacking === undefined) return;
  const what =
    lacking.kind === 'effect'
      ? 'performs effects, but no effects ledger is open'
      : 'runs agents, but no executions store is open';
  throw new WorkflowDefinitionError(
    `workflow ${JSON.stringify(definition.name)}: step ${JSON.stringify(lacking.name)} ${what}`,
  );
}
