/**
 * The execution a service verb (`send`, `cancel`, `resume`, `switch`) names by its id or a unique
 * prefix, by the rule every verb shares (cli/id-prefix.ts). A whole id goes to the service as it is,
 * with no extra request (the service answers 404 for an unknown one: exit 6); a prefix is looked up
 * in the service's own list (`GET /api/executions`: every execution, live and ended), since the
 * service, not this machine's state directory, holds the executions these verbs act on.
 */
import { isExecutionId } from '../core/execution-id-shape.js';
import type { ServiceClient } from './client.js';
import { resolveExecution } from './id-prefix.js';

/** The whole id `idOrPrefix` names on the service `client` talks to. */
export function serviceExecutionId(
  client: Pick<ServiceClient, 'url' | 'executionIds'>,
  idOrPrefix: string,
): Promise<string> {
  return resolveExecution(idOrPrefix, {
    exact: async (id) => (isExecutionId(id) ? id : undefined),
    startingWith: async (prefix) => (await client.executionIds()).filter((id) => id.startsWith(prefix)),
    where: `on the service at ${client.url}`,
  });
}
