/**
 * Command-line helpers shared by the adapters' `command` builders. Pure.
 */

/**
 * Returns the prompt as an argv element the CLI's option parser cannot take for an option. Both CLIs
 * read the prompt as a positional argument (Claude's commander, Codex's clap), so a prompt starting
 * with `-` (a markdown list: `- fix the build`) would be parsed as unknown options and the run would
 * fail as a usage error. A leading space makes it a positional word and changes nothing for the model.
 */
export function promptArg(prompt: string): string {
  return prompt.startsWith('-') ? ` ${prompt}` : prompt;
}
