/**
 * `harmflow resume ID` — asks the running service to end an execution's wait for a quota reset now:
 * it carries on at once, as a new attempt on the harness it was waiting for, with the handoff (for
 * when a person knows the limit is gone, e.g. after upgrading a plan). Exit 7 when it is not waiting.
 */
import type { Command } from 'commander';
import { connect, HOME_HELP, URL_HELP } from './client.js';
import { serviceExecutionId } from './service-id.js';

export function registerResume(program: Command): void {
  program
    .command('resume')
    .description('end an execution’s wait for a quota reset now, on the running service')
    .argument('<id>', 'execution id or a unique prefix')
    .option('--json', 'print the execution record as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (id: string, options: { json?: boolean; home?: string; url?: string }) => {
      const client = connect(options);
      const execution = await client.resume(await serviceExecutionId(client, id));
      process.stdout.write(
        options.json ? `${JSON.stringify(execution, null, 2)}\n` : `${execution.id} resumed: it carries on now\n`,
      );
    });
}
