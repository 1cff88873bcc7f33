/**
 * `harmflow --help` without loading the verbs. The build records each verb's usage term and
 * description from the whole program (`describeVerbs`, scripts/bundle.mjs); at run time the root
 * command gets a stub per verb and commander formats the help from those records, to the terminal's
 * width, exactly as the whole program would (test/cli/bundled-verbs.test.ts holds the two equal).
 */
import type { Command } from 'commander';
import { overrideExits, rootCommand } from './root-command.js';

/** One verb as the root help lists it. */
export interface VerbSummary {
  readonly name: string;
  /** Its usage term: name, aliases, `[options]` and arguments, as commander writes them. */
  readonly term: string;
  readonly description: string;
}

/** The verbs `program` lists in its help, in its order (commander's own `help [command]` included). */
export function describeVerbs(program: Command): VerbSummary[] {
  const help = program.createHelp();
  return help.visibleCommands(program).map((command) => ({
    name: command.name(),
    term: help.subcommandTerm(command),
    description: help.subcommandDescription(command),
  }));
}

/** The root command with a stub for each of `verbs`: enough for `--help`, nothing to run. */
export function rootHelpProgram(verbs: readonly VerbSummary[]): Command {
  const program = rootCommand();
  const byName = new Map(verbs.map((verb) => [verb.name, verb]));
  program.configureHelp({
    subcommandTerm: (command) => byName.get(command.name())?.term ?? command.name(),
    subcommandDescription: (command) => byName.get(command.name())?.description ?? '',
  });
  // commander adds its own `help [command]` to a program with verbs, as it does to the whole one.
  for (const verb of verbs) if (verb.name !== 'help') program.command(verb.name).description(verb.description);
  return overrideExits(program);
}
