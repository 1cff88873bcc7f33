/**
 * What the terminal UI reads and asks of the service — executions, and the workflow runs the
 * Workflows screen lists (read only: a run is reviewed in the Workbench) —: one small seam, so the app runs against the
 * service (`clientSource`, the CLI's zod-checked client) and the tests against a loopback server or
 * a real `harmflow serve` through the same client. Errors are the client's named HarmflowErrors;
 * the app shows their message.
 */
import type { ServiceClient } from '../cli/client.js';
import { type ExecutionScreen, type ListedExecution, listedOf } from './rows.js';
import type { ListedRun } from './run-rows.js';

/** Who a switch asked from the terminal UI says asked for it (`switch.requested`'s `by`). */
export const SWITCHED_BY = 'terminal';

/** The client's reads and actions on one execution that the detail view uses. */
export type ExecutionActions = Pick<
  ServiceClient,
  'execution' | 'context' | 'disk' | 'changes' | 'events' | 'send' | 'cancel' | 'resume' | 'switchHarness'
>;

/** The client's reads of workflow runs that the Workflows screen uses. */
export type WorkflowReads = Pick<ServiceClient, 'url' | 'workflowRun'>;

export interface ExecutionSource extends ExecutionActions, WorkflowReads {
  /** The screen's executions, newest first: live ones for `executions`, ended ones for `history`. */
  list(screen: ExecutionScreen): Promise<readonly ListedExecution[]>;
  /** The workflow runs, newest first, each in the state it is shown in (`interrupted`: its process is gone). */
  runs(): Promise<readonly ListedRun[]>;
}

export function clientSource(
  client: Pick<ServiceClient, 'executions' | 'workflowRuns'> & ExecutionActions & WorkflowReads,
): ExecutionSource {
  return {
    url: client.url,
    list: async (screen) => listedOf(await client.executions(screen === 'executions' ? 'live' : 'ended')),
    runs: () => client.workflowRuns(),
    workflowRun: (id) => client.workflowRun(id),
    execution: (id) => client.execution(id),
    context: (id) => client.context(id),
    disk: (id) => client.disk(id),
    changes: (id) => client.changes(id),
    events: (id, handlers) => client.events(id, handlers),
    send: (id, text) => client.send(id, text),
    cancel: (id) => client.cancel(id),
    resume: (id) => client.resume(id),
    switchHarness: (id, request) => client.switchHarness(id, request),
  };
}
