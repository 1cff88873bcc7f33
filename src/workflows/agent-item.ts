/**
 * An agent step's item: the task its step gives for the item, checked as a task file is (paths must
 * be absolute: there is no task-file folder here), run as a HarmFlow execution through the failover
 * engine (src/execution), in the executions' state directory and store the caller opened. Its output
 * is the execution's outcome; an execution that does not succeed is a defect of the item (the engine
 * already switched harness on quota and retried what it could).
 */
import { isAbsolute } from 'node:path';
import { TaskFileError } from '../core/errors.js';
import type { HomePaths } from '../core/home.js';
import { resolveTask, TaskFile } from '../core/task.js';
import { describeIssue } from '../core/task-file.js';
import { runTask } from '../execution/engine.js';
import type { Json } from '../store/resume-store.js';
import type { Store } from '../store/store.js';
import type { AgentStep, ItemInput } from './define.js';
import { DefectError } from './errors.js';

/** Where agent steps run their executions: HARMFLOW_HOME and its store, as `harmflow run` does. */
export interface AgentContext {
  readonly home: HomePaths;
  readonly store: Store;
  /** Directories put first on the harnesses' PATH, and the environment they read `passEnv` from. */
  readonly extraPath?: readonly string[];
  readonly hostEnv?: NodeJS.ProcessEnv;
}

/** Runs the item's task as an execution; resolves with its outcome. */
export async function runAgentItem(
  step: AgentStep,
  input: ItemInput,
  context: AgentContext | undefined,
): Promise<Json> {
  if (context === undefined) throw new DefectError(`step ${step.name} runs agents, but no executions store is open`);
  const file = TaskFile.safeParse(step.task(input));
  if (!file.success)
    throw new DefectError(`step ${step.name} item ${input.key}: invalid task: ${describeIssue(file.error)}`);
  const task = resolveTask(file.data, (path) => {
    if (!isAbsolute(path)) throw new TaskFileError(`${JSON.stringify(path)} must be an absolute path`);
    return path;
  });
  const result = await runTask(task, {
    home: context.home,
    store: context.store,
    ...(context.extraPath !== undefined && { extraPath: context.extraPath }),
    ...(context.hostEnv !== undefined && { hostEnv: context.hostEnv }),
  });
  const outcome: Json = {
    execution: result.id,
    state: result.state,
    branch: result.branch,
    attempts: result.attempts.map((attempt) => ({ harness: attempt.harness, outcome: attempt.outcome })),
  };
  if (result.state !== 'succeeded') {
    throw new DefectError(`execution ${result.id} of step ${step.name} item ${input.key} ended ${result.state}`);
  }
  return outcome;
}
