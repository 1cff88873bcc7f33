/**
 * `harmflow stop` — asks the running service to stop. It answers first, with how many executions
 * the stop suspends (running, waiting for a quota reset, queued: counted as it answers; they carry
 * on at its next start), then stops taking requests and exits; this command returns once it has
 * answered. `--json` prints the answer as it came.
 */
import type { Command } from 'commander';
import type { Stopping } from './client.js';
import { connect, HOME_HELP, URL_HELP } from './client.js';
import { printLine } from './print-line.js';

export function registerStop(program: Command): void {
  program
    .command('stop')
    .description('stop the running service (harmflow serve); its executions carry on at its next start')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .option('--json', 'print the answer as JSON')
    .action(async (options: { home?: string; url?: string; json?: boolean }) => {
      const client = connect(options);
      const answer = await client.stop();
      if (options.json) return printLine(JSON.stringify(answer, null, 2));
      printLine(`the HarmFlow service at ${client.url} is stopping${suspendedPart(answer)}`);
    });
}

/** `: it suspends 1 running, 0 waiting and 2 queued execution(s), which carry on at its next start`; empty from an older service. */
function suspendedPart({ suspending }: Stopping): string {
  if (suspending === undefined) return '';
  const { running, waiting, queued } = suspending;
  return `: it suspends ${running} running, ${waiting} waiting and ${queued} queued execution(s), which carry on at its next start`;
}
