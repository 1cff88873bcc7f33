/**
 * Runs a `harmflow` command line and maps its errors to one line on stderr (a line a problem for a
 * task file with several) and the documented exit code (docs/cli.md). Stack traces only with
 * `--debug`. Shared by the whole program (cli/main.ts) and the bundled entries of the everyday verbs
 * (cli/bundled-verbs.ts), so both answer alike.
 */
import { type Command, CommanderError } from 'commander';
import { describeErrorLines, EXIT, HarmflowError } from '../core/errors.js';
import { inertText } from '../core/terminal-text.js';

export async function runCli(argv: readonly string[], program: Command): Promise<void> {
  // A reader that stops early (`harmflow … | head`) closes the pipe: that ends the output, not in an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
    throw error;
  });
  const debug = argv.includes('--debug');
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has already printed its own message (or the help / version text).
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    // Inert: a message may quote what a harness or a service wrote (core/terminal-text.ts).
    for (const line of describeErrorLines(error)) process.stderr.write(`harmflow: ${inertText(line)}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exitCode = error instanceof HarmflowError ? error.exitCode : EXIT.internal;
  }
}
