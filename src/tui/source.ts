/**
 * Where the list screens get their rows: one small seam, so the app runs against the service
 * (`clientSource`, the CLI's zod-checked client) and the tests against a loopback server through the
 * same client. Errors are the client's named HarmflowErrors; the app shows their message.
 */
import type { ServiceClient } from '../cli/client.js';
import { type ListedExecution, listedOf, type Screen } from './rows.js';

export interface ExecutionSource {
  /** The screen's executions, newest first: live ones for `executions`, ended ones for `history`. */
  list(screen: Screen): Promise<readonly ListedExecution[]>;
}

export function clientSource(client: Pick<ServiceClient, 'executions'>): ExecutionSource {
  return {
    list: async (screen) => listedOf(await client.executions(screen === 'executions' ? 'live' : 'ended')),
  };
}
