/**
 * `harmflow cancel ID` — asks the running service to cancel an execution, then (unless
 * `--no-wait`) polls it until its state is final and prints that state. Canceling interrupts the
 * current harness and kills its process group after the interrupt budget; the execution records
 * what was done and ends `canceled` (or its real end, if it ended first).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { formatDuration, parseDuration } from '../core/duration.js';
import { ServiceUnavailableError, UsageError } from '../core/errors.js';
import { FINAL_STATES } from '../core/outcome.js';
import { inertText } from '../core/terminal-text.js';
import type { ExecutionRecord } from '../store/store.js';
import { connect, HOME_HELP, type ServiceClient, type ServiceOptions, URL_HELP } from './client.js';
import { serviceExecutionId } from './service-id.js';

/**
 * 250 ms between polls: a person does not notice a quarter second between the execution ending
 * and the prompt returning, and four reads a second (one store lookup each) cost the service
 * nothing worth counting.
 */
export const POLL_INTERVAL_MS = 250;

/**
 * 120 s: the harness gets 5 s to stop before its process group is killed
 * (DEFAULT_INTERRUPT_BUDGET_MS), then the execution inspects its worktree and writes its context
 * (git on the worktree: seconds on a large repository). 120 s covers that many times over on a
 * loaded machine, so running out means the execution is stuck, not slow.
 */
export const DEFAULT_WAIT = '120s';

/** Polls `id` until its state is final; ServiceUnavailableError when `timeoutMs` passes first. */
export async function waitUntilEnded(
  client: ServiceClient,
  id: string,
  timeoutMs: number,
  intervalMs: number = POLL_INTERVAL_MS,
): Promise<ExecutionRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { execution } = await client.execution(id);
    if (FINAL_STATES.has(execution.state)) return execution;
    if (Date.now() >= deadline) {
      throw new ServiceUnavailableError(
        `execution ${id} is still ${execution.state} ${formatDuration(timeoutMs)} after the cancel (see \`harmflow show ${id}\`)`,
      );
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}

export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .description('cancel an execution on the running service and wait until it has ended')
    .argument('<id>', 'execution id or a unique prefix')
    .option('--no-wait', 'return once the service has the request, without waiting for the end')
    .option('--timeout <duration>', 'how long to wait for the end (e.g. 90s, 5m)', DEFAULT_WAIT)
    .option('--json', 'print the execution record as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (id: string, options: ServiceOptions & { wait: boolean; timeout: string; json?: boolean }) => {
      const timeoutMs = parseDuration(options.timeout);
      if (timeoutMs === undefined) throw new UsageError(`--timeout: not a duration: ${options.timeout}`);
      const client = connect(options);
      const whole = await serviceExecutionId(client, id);
      const asked = await client.cancel(whole);
      const execution = options.wait ? await waitUntilEnded(client, whole, timeoutMs) : asked;
      if (options.json) return void process.stdout.write(`${JSON.stringify(execution, null, 2)}\n`);
      const said = FINAL_STATES.has(execution.state)
        ? `${execution.state}${execution.message ? ` — ${execution.message}` : ''}`
        : `cancel requested (${execution.state})`;
      // Inert: the end message may quote what the harness wrote (core/terminal-text.ts).
      process.stdout.write(`execution ${execution.id}: ${inertText(said)}\n`);
    });
}
