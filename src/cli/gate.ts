/**
 * `harmflow gate <event>` in the command list. The launcher runs src/gates/main.ts directly, before
 * the CLI loads; this entry gives the command its help line and serves a CLI started another way.
 */
import type { Command } from 'commander';

export function registerGate(program: Command): void {
  program
    .command('gate')
    .description(
      "run the gates for one hook call of a harness (installed by HarmFlow for each attempt; reads the hook's JSON on stdin)",
    )
    .argument('<event>', 'PreToolUse, PostToolUse or Stop')
    .action(async () => {
      await import('../gates/main.js');
    });
}
