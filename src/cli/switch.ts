/**
 * `harmflow switch ID --to HARNESS [--model M] [--reason TEXT]` — asks the running service to move
 * an execution to another harness now: the running turn is interrupted at its safepoint (a wait for
 * a quota reset ends at once) and the chosen harness carries on in the same worktree with the
 * handoff. The harness need not be in the task's chain. Exit 7 when the execution is not running or
 * waiting, or the harness cannot start on the service's machine.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { HARNESS_NAMES, HarnessName } from '../core/outcome.js';
import { connect, HOME_HELP, URL_HELP } from './client.js';
import { serviceExecutionId } from './service-id.js';

interface SwitchOptions {
  to: string;
  model?: string;
  reason?: string;
  json?: boolean;
  home?: string;
  url?: string;
}

/** The user asking, for the timeline; `unknown user` where the system has no name for this uid. */
function whoAmI(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown user';
  }
}

export function registerSwitch(program: Command): void {
  program
    .command('switch')
    .description('move an execution to another harness now, with the handoff, on the running service')
    .argument('<id>', 'execution id or a unique prefix')
    .requiredOption('--to <harness>', `the harness to carry on with (${HARNESS_NAMES.join(', ')})`)
    .option('--model <model>', 'the model it runs')
    .option('--reason <text>', 'why, for the timeline')
    .option('--json', 'print the execution record as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (id: string, options: SwitchOptions) => {
      const harness = HarnessName.safeParse(options.to);
      if (!harness.success) {
        throw new UsageError(
          `--to: unknown harness ${JSON.stringify(options.to)} (known: ${HARNESS_NAMES.join(', ')})`,
        );
      }
      const client = connect(options);
      const execution = await client.switchHarness(await serviceExecutionId(client, id), {
        to: harness.data,
        by: `cli (${whoAmI()})`,
        ...(options.model !== undefined && { model: options.model }),
        ...(options.reason !== undefined && { reason: options.reason }),
      });
      process.stdout.write(
        options.json
          ? `${JSON.stringify(execution, null, 2)}\n`
          : `${execution.id} switches to ${harness.data}${options.model ? ` (${options.model})` : ''}: the running turn stops at its safepoint\n`,
      );
    });
}
