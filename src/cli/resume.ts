/**
 * `harmflow resume ID` — asks the running service to end an execution's wait for a quota reset now:
 * it carries on at once, as a new attempt on the harness it was waiting for, with the handoff (for
 * when a person knows the limit is gone, e.g. after upgrading a plan). Exit 7 when it is not waiting.
 */
import type { Command } from 'commander';
import { connect, HOME_HELP, requireExecutionId } from './client.js';

export function registerResume(program: Command): void {
  program
    .command('resume')
    .description('end an execution’s wait for a quota reset now, on the running service')
    .argument('<id>', 'the whole execution id')
    .option('--json', 'print the execution record as JSON')
    .option('--home <dir>', HOME_HELP)
    .action(async (id: string, options: { json?: boolean; home?: string }) => {
      requireExecutionId(id);
      const execution = await connect(options).resume(id);
      process.stdout.write(
        options.json ? `${JSON.stringify(execution, null, 2)}\n` : `${execution.id} resumed: it carries on now\n`,
      );
    });
}
