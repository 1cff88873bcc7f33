/**
 * `harmflow ui` — the terminal UI: the Workbench's Executions and History screens and an execution's
 * Summary, Events, Transcript and Changes with its actions, by keyboard, over
 * the running service's API (the same URL and token as the other service verbs: `--url` or
 * `HARMFLOW_URL`, `HARMFLOW_TOKEN` or the token file under `--home`). The UI itself (src/tui/) is
 * imported only when this command runs, so no other command loads React or Ink.
 */
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { connect, HOME_HELP, URL_HELP } from './client.js';

export function registerUi(program: Command): void {
  program
    .command('ui')
    .description(
      "browse and steer executions in the terminal (Executions, History, an execution's tabs), on the running service",
    )
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (options: { home?: string; url?: string }) => {
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        throw new UsageError('`harmflow ui` needs a terminal: run it with stdin and stdout on a terminal, not a pipe');
      }
      const client = connect(options);
      const [{ startUi }, { clientSource }] = await Promise.all([
        import('../tui/start.js'),
        import('../tui/source.js'),
      ]);
      await startUi({ source: clientSource(client), env: process.env });
    });
}
