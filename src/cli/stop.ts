/**
 * `harmflow stop` — asks the running service to stop. It answers first, then stops taking requests
 * and exits; this command returns once it has answered.
 */
import type { Command } from 'commander';
import { connect, HOME_HELP, URL_HELP } from './client.js';

export function registerStop(program: Command): void {
  program
    .command('stop')
    .description('stop the running service (harmflow serve)')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (options: { home?: string; url?: string }) => {
      const client = connect(options);
      await client.stop();
      process.stdout.write(`the HarmFlow service at ${client.url} is stopping\n`);
    });
}
