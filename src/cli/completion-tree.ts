/**
 * The commands of a commander program as shell completion needs them: each command's name, its
 * subcommands, its options (every way to write each, whether it takes a value, the values it names)
 * and the values its arguments name (commander's `choices`). Read from the program itself, the one
 * `harmflow` runs, so a completion script made from it lists exactly the verbs and options of the
 * version that made it (cli/completion-scripts.ts writes the scripts). Pure; hidden commands and
 * options are left out, as the help leaves them out; so are aliases (no harmflow command has one).
 */
import type { Command } from 'commander';

/** One option: `--all` and `-a` are the same option. */
export interface CompletionOption {
  readonly flags: readonly string[];
  readonly description: string;
  /** True when the word after it is its value (`--home <dir>`), so not a command or an argument. */
  readonly takesValue: boolean;
  /** The values it takes, when it names them; empty otherwise (a shell then completes file names). */
  readonly values: readonly string[];
}

/** One command, at `path` (its names from the program's down, space-separated; '' for the program). */
export interface CompletionCommand {
  readonly path: string;
  readonly name: string;
  readonly description: string;
  readonly options: readonly CompletionOption[];
  /** The values its arguments name (`completion <shell>`: bash, zsh, fish). */
  readonly values: readonly string[];
  readonly commands: readonly CompletionCommand[];
}

/** `program` and every command under it, as completion needs them. */
export function completionTree(program: Command, path = ''): CompletionCommand {
  const help = program.createHelp();
  return {
    path,
    name: program.name(),
    description: program.summary() || program.description(),
    options: help.visibleOptions(program).map((option) => ({
      flags: [option.short, option.long].filter((flag): flag is string => flag !== undefined),
      description: option.description,
      takesValue: option.required || option.optional,
      values: option.argChoices ?? [],
    })),
    values: program.registeredArguments.flatMap((argument) => argument.argChoices ?? []),
    commands: help
      .visibleCommands(program)
      .map((command) => completionTree(command, path === '' ? command.name() : `${path} ${command.name()}`)),
  };
}

/** `tree` and every command under it, the program first. */
export function allCommands(tree: CompletionCommand): CompletionCommand[] {
  return [tree, ...tree.commands.flatMap(allCommands)];
}
