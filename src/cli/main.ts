/**
 * The `harmflow` entry point: runs the program and maps errors to one line on stderr and the
 * documented exit code (docs/cli.md). Stack traces only with `--debug`.
 */
import { CommanderError } from 'commander';
import { describeError, EXIT, HarmflowError } from '../core/errors.js';
import { inertText } from '../core/terminal-text.js';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<void> {
  const debug = argv.includes('--debug');
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has already printed its own message (or the help / version text).
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    // Inert: a message may quote what a harness or a service wrote (core/terminal-text.ts).
    process.stderr.write(`harmflow: ${inertText(describeError(error))}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exitCode = error instanceof HarmflowError ? error.exitCode : EXIT.internal;
  }
}

// A reader that stops early (`harmflow … | head`) closes the pipe: that ends the output, not in an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
  throw error;
});

await main(process.argv);
