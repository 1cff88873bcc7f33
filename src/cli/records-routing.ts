/**
 * `harmflow show ID`'s session routing: which harness sessions the execution's attempts ran in and
 * where the next follow-up goes (src/execution/session-routing.ts), from its store rows and its
 * context.json; and the same in words (web/describe-routing.ts, as the Workbench's Summary says it).
 * Loaded by the verb's action (cli/records.ts), so `ls` does not load the context schema.
 */
import { readFileSync } from 'node:fs';
import type { HomePaths } from '../core/home.js';
import { type AttemptContext, StoredContext } from '../execution/context-schema.js';
import { type SessionRouting, sessionRouting } from '../execution/session-routing.js';
import type { AttemptRecord, ExecutionRecord } from '../store/store.js';
import { describeNextFollowUp, describeRunning, describeSession } from '../web/describe-routing.js';

/** The routing of `execution`; a context.json missing or unreadable leaves the ended attempts to their rows. */
export function routingOf(
  home: HomePaths,
  execution: ExecutionRecord,
  attempts: readonly AttemptRecord[],
): SessionRouting {
  return sessionRouting({ execution, attempts, context: contextAttempts(home.contextFile(execution.id)) });
}

/** `session   …` per harness session, `running   …`, then `follow-up …`. */
export function routingLines(routing: SessionRouting): string[] {
  return [
    ...routing.sessions.map((session) => `session   ${describeSession(session)}`),
    ...(routing.running === undefined ? [] : [`running   ${describeRunning(routing.running)}`]),
    `follow-up ${describeNextFollowUp(routing.nextFollowUp)}`,
  ];
}

function contextAttempts(file: string): readonly AttemptContext[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  try {
    return StoredContext.safeParse(JSON.parse(text)).data?.attempts ?? [];
  } catch {
    return [];
  }
}
