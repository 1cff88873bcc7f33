/**
 * The `harmflow` root command: its name, description, version and `--debug`, before any verb is
 * registered. The whole program (cli/program.ts) and each bundled entry (scripts/bundle.mjs) start
 * from it, so usage lines, `--version` and errors read the same whichever runs a verb.
 */
import { Command } from 'commander';

/** The package's version; `harmflow --version` prints it (a test holds it equal to package.json's). */
export const HARMFLOW_VERSION = '0.1.0';

export function rootCommand(): Command {
  return new Command('harmflow')
    .description('Run AI coding-agent CLIs as durable executions that fail over across harnesses when quota runs out.')
    .version(HARMFLOW_VERSION)
    .option('--debug', 'print stack traces of errors')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
}

/** Makes every verb registered on `program` throw instead of exiting, as the root does (cli/run-cli.ts). */
export function overrideExits(program: Command): Command {
  for (const command of program.commands) command.exitOverride();
  return program;
}
