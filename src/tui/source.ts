/**
 * What the terminal UI reads and asks of the service: one small seam, so the app runs against the
 * service (`clientSource`, the CLI's zod-checked client) and the tests against a loopback server or
 * a real `harmflow serve` through the same client. Errors are the client's named HarmflowErrors;
 * the app shows their message.
 */
import type { ServiceClient } from '../cli/client.js';
import { type ListedExecution, listedOf, type Screen } from './rows.js';

/** Who a switch asked from the terminal UI says asked for it (`switch.requested`'s `by`). */
export const SWITCHED_BY = 'terminal';

/** The client's reads and actions on one execution that the detail view uses. */
export type ExecutionActions = Pick<
  ServiceClient,
  'execution' | 'context' | 'disk' | 'changes' | 'events' | 'send' | 'cancel' | 'resume' | 'switchHarness'
>;

export interface ExecutionSource extends ExecutionActions {
  /** The screen's executions, newest first: live ones for `executions`, ended ones for `history`. */
  list(screen: Screen): Promise<readonly ListedExecution[]>;
}

export function clientSource(client: Pick<ServiceClient, 'executions'> & ExecutionActions): ExecutionSource {
  return {
    list: async (screen) => listedOf(await client.executions(screen === 'executions' ? 'live' : 'ended')),
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
