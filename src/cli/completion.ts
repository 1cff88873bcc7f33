/**
 * `harmflow completion bash|zsh|fish` — prints a completion script for that shell: the verbs, their
 * subcommands and options, and the values those name, made at this moment from the program that
 * runs it (cli/completion-tree.ts, cli/completion-scripts.ts), so a script never offers a verb or an
 * option this harmflow lacks. The script's first lines, and docs/cli.md, say how to load it. A shell
 * not in the list is commander's usage error (exit 2).
 */
import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type Shell } from './completion-scripts.js';
import { completionTree } from './completion-tree.js';
import { HARMFLOW_VERSION } from './root-command.js';

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script for harmflow: its verbs and their options')
    .addArgument(new Argument('<shell>', SHELLS.join(', ')).choices(SHELLS))
    .action((shell: Shell) => {
      process.stdout.write(completionScript(shell, completionTree(program), HARMFLOW_VERSION));
    });
}
