/**
 * The completion scripts `harmflow completion bash|zsh|fish` prints, written from the program's
 * commands (cli/completion-tree.ts), so each lists exactly the verbs and options of the harmflow that
 * made it. Each script holds the commands as a table and walks the words typed so far the same way:
 * a word that names a subcommand of the command reached so far goes down to it, an option that takes
 * a value skips the word after it. At the cursor it offers the options of the command reached for a
 * word starting with `-`, the values an option names after that option, else the command's
 * subcommands and the values its arguments name, and file names where it knows of nothing else
 * (`run TASK`). Pure: the text only.
 */
import { allCommands, type CompletionCommand, type CompletionOption } from './completion-tree.js';

/** The shells there is a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The script for `shell`, completing the command `tree` describes (its name is the program's). */
export function completionScript(shell: Shell, tree: CompletionCommand, version: string): string {
  const writers: Record<Shell, (tree: CompletionCommand, version: string) => string> = {
    bash: bashScript,
    zsh: zshScript,
    fish: fishScript,
  };
  return writers[shell](tree, version);
}

/** `text` as one word for bash or zsh: single-quoted. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `text` as one word for fish: single-quoted, where `\` and `'` are escaped. */
function fishQuoted(text: string): string {
  return `'${text.replace(/[\\']/g, (character) => `\\${character}`)}'`;
}

/** A description on one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const flagsOf = (options: readonly CompletionOption[]) => options.flatMap((option) => option.flags);
const valuedFlags = (command: CompletionCommand) => flagsOf(command.options.filter((option) => option.takesValue));

/** The options of every command that name their values, each with its command's path. */
function namedValues(tree: CompletionCommand): { path: string; flag: string; values: readonly string[] }[] {
  return allCommands(tree).flatMap((command) =>
    command.options
      .filter((option) => option.values.length > 0)
      .flatMap((option) => option.flags.map((flag) => ({ path: command.path, flag, values: option.values }))),
  );
}

function header(shell: Shell, tree: CompletionCommand, version: string, load: readonly string[]): string[] {
  return [
    `# ${shell} completion for ${tree.name} ${version}, made by \`${tree.name} completion ${shell}\` from its commands.`,
    ...load.map((line) => `# ${line}`),
    '',
  ];
}

function bashScript(tree: CompletionCommand, version: string): string {
  const name = tree.name;
  const fn = `_${name}`;
  const nodes = allCommands(tree).map((command) => {
    const fields = [
      `${fn}_commands=${quoted(command.commands.map((sub) => sub.name).join(' '))}`,
      `${fn}_options=${quoted(flagsOf(command.options).join(' '))}`,
      `${fn}_valued=${quoted(valuedFlags(command).join(' '))}`,
      `${fn}_values=${quoted(command.values.join(' '))}`,
    ];
    return `    ${quoted(command.path)}) ${fields.join('; ')} ;;`;
  });
  const values = namedValues(tree).map(
    ({ path, flag, values }) => `    ${quoted(`${path} ${flag}`)}) printf '%s\\n' ${values.map(quoted).join(' ')} ;;`,
  );
  return [
    ...header('bash', tree, version, [
      `This shell:   source <(${name} completion bash)`,
      `Every shell:  ${name} completion bash > ~/.local/share/bash-completion/completions/${name}`,
    ]),
    `# ${fn}_node PATH: the subcommands, options, options that take a value and argument values of the command at PATH.`,
    `${fn}_node() {`,
    '  case "$1" in',
    ...nodes,
    `    *) ${fn}_commands=''; ${fn}_options=''; ${fn}_valued=''; ${fn}_values='' ;;`,
    '  esac',
    '}',
    '',
    `# ${fn}_option_values PATH OPTION: the values OPTION of the command at PATH names, one a line.`,
    `${fn}_option_values() {`,
    '  case "$1 $2" in',
    ...values,
    '  esac',
    '}',
    '',
    `${fn}() {`,
    `  local cur=\${COMP_WORDS[COMP_CWORD]} at='' word value='' i`,
    `  local ${fn}_commands ${fn}_options ${fn}_valued ${fn}_values`,
    `  ${fn}_node ''`,
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    `    word=\${COMP_WORDS[i]}`,
    `    if [[ -n $value ]]; then value=''; continue; fi`,
    `    if [[ " $${fn}_valued " == *" $word "* ]]; then value=$word; continue; fi`,
    `    if [[ $word != -* && " $${fn}_commands " == *" $word "* ]]; then`,
    `      at=\${at:+$at }$word`,
    `      ${fn}_node "$at"`,
    '    fi',
    '  done',
    '  COMPREPLY=()',
    '  if [[ -n $value ]]; then',
    `    COMPREPLY=($(compgen -W "$(${fn}_option_values "$at" "$value")" -- "$cur"))`,
    '  elif [[ $cur == -* ]]; then',
    `    COMPREPLY=($(compgen -W "$${fn}_options" -- "$cur"))`,
    '  else',
    `    COMPREPLY=($(compgen -W "$${fn}_commands $${fn}_values" -- "$cur"))`,
    '  fi',
    '}',
    `complete -o default -F ${fn} ${name}`,
    '',
  ].join('\n');
}

function zshScript(tree: CompletionCommand, version: string): string {
  const name = tree.name;
  const fn = `_${name}`;
  const described = (label: string, description: string) => quoted(`${label}:${oneLine(description)}`);
  const nodes = allCommands(tree).map((command) => {
    const fields = [
      `${fn}_commands=(${command.commands.map((sub) => described(sub.name, sub.description)).join(' ')})`,
      `${fn}_options=(${command.options.flatMap((option) => option.flags.map((flag) => described(flag, option.description))).join(' ')})`,
      `${fn}_valued=(${valuedFlags(command).map(quoted).join(' ')})`,
      `${fn}_values=(${command.values.map(quoted).join(' ')})`,
    ];
    return `    ${quoted(command.path)}) ${fields.join('; ')} ;;`;
  });
  const values = namedValues(tree).map(
    ({ path, flag, values }) => `    ${quoted(`${path} ${flag}`)}) print -l -- ${values.map(quoted).join(' ')} ;;`,
  );
  return [
    `#compdef ${name}`,
    ...header('zsh', tree, version, [
      `This shell (after compinit):  source <(${name} completion zsh)`,
      `Every shell:  ${name} completion zsh > ~/.zsh/completions/${fn}  (a folder on $fpath, before compinit)`,
    ]),
    `# ${fn}_node PATH: the subcommands, options, options that take a value and argument values of the command at PATH.`,
    `${fn}_node() {`,
    '  case "$1" in',
    ...nodes,
    `    *) ${fn}_commands=(); ${fn}_options=(); ${fn}_valued=(); ${fn}_values=() ;;`,
    '  esac',
    '}',
    '',
    `# ${fn}_option_values PATH OPTION: the values OPTION of the command at PATH names, one a line.`,
    `${fn}_option_values() {`,
    '  case "$1 $2" in',
    ...values,
    '  esac',
    '}',
    '',
    `${fn}() {`,
    `  local -a ${fn}_commands ${fn}_options ${fn}_valued ${fn}_values names named`,
    // Not `path`: zsh ties that name to PATH.
    "  local at='' word value='' i",
    `  ${fn}_node ''`,
    '  for (( i = 2; i < CURRENT; i++ )); do',
    `    word=\${words[i]}`,
    `    if [[ -n $value ]]; then value=''; continue; fi`,
    `    if (( \${${fn}_valued[(Ie)$word]} )); then value=$word; continue; fi`,
    // The names apart first: `${${a%%:*}[(Ie)w]}` inside (( )) finds nothing (zsh 5.9).
    `    names=(\${${fn}_commands%%:*})`,
    `    if [[ $word != -* ]] && (( \${names[(Ie)$word]} )); then`,
    `      at=\${at:+$at }$word`,
    `      ${fn}_node "$at"`,
    '    fi',
    '  done',
    '  if [[ -n $value ]]; then',
    `    named=(\${(f)"$(${fn}_option_values "$at" "$value")"})`,
    '    if (( $#named )); then compadd -a named; else _files; fi',
    '  elif [[ $PREFIX == -* ]]; then',
    `    _describe -t options 'option' ${fn}_options`,
    `  elif (( $#${fn}_commands + $#${fn}_values )); then`,
    `    (( $#${fn}_commands )) && _describe -t commands 'command' ${fn}_commands`,
    `    (( $#${fn}_values )) && compadd -a ${fn}_values`,
    '  else',
    '    _files',
    '  fi',
    '}',
    '',
    // Autoloaded from $fpath, this file is the function's body: complete now; sourced, register.
    `if [[ $funcstack[1] == ${fn} ]]; then ${fn} "$@"; else compdef ${fn} ${name}; fi`,
    '',
  ].join('\n');
}

function fishScript(tree: CompletionCommand, version: string): string {
  const name = tree.name;
  const fn = `__${name}`;
  const commands = allCommands(tree);
  const table = (entries: (command: CompletionCommand) => readonly string[]) =>
    commands.flatMap((command) => {
      const words = entries(command);
      return words.length === 0
        ? []
        : [`        case ${fishQuoted(command.path)}`, `            printf '%s\\n' ${words.map(fishQuoted).join(' ')}`];
    });
  const at = (command: CompletionCommand) => `-n ${fishQuoted(`${fn}_at ${fishQuoted(command.path)}`)}`;
  const lines = commands.flatMap((command) => [
    // Where a subcommand is expected, no file names.
    ...(command.commands.length > 0 ? [`complete -c ${name} ${at(command)} -f`] : []),
    ...command.commands.map(
      (sub) =>
        `complete -c ${name} ${at(command)} -a ${fishQuoted(sub.name)} -d ${fishQuoted(oneLine(sub.description))}`,
    ),
    ...(command.values.length > 0
      ? [`complete -c ${name} ${at(command)} -f -a ${fishQuoted(command.values.join(' '))}`]
      : []),
    ...command.options.map((option) => {
      const flags = option.flags.map((flag) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`));
      const value =
        option.values.length > 0 ? ` -x -a ${fishQuoted(option.values.join(' '))}` : option.takesValue ? ' -r' : '';
      return `complete -c ${name} ${at(command)} ${flags.join(' ')}${value} -d ${fishQuoted(oneLine(option.description))}`;
    }),
  ]);
  return [
    ...header('fish', tree, version, [
      `This shell:   ${name} completion fish | source`,
      `Every shell:  ${name} completion fish > ~/.config/fish/completions/${name}.fish`,
    ]),
    `# ${fn}_commands PATH: the subcommands of the command at PATH, one a line.`,
    `function ${fn}_commands --argument-names at`,
    '    switch $at',
    ...table((command) => command.commands.map((sub) => sub.name)),
    '    end',
    'end',
    '',
    `# ${fn}_valued PATH: the options of the command at PATH that take a value, one a line.`,
    `function ${fn}_valued --argument-names at`,
    '    switch $at',
    ...table(valuedFlags),
    '    end',
    'end',
    '',
    '# The command the words before the cursor reach, as its path.',
    `function ${fn}_path`,
    "    set -l at ''",
    '    set -l value 0',
    '    for word in (commandline -opc)[2..-1]',
    '        if test $value = 1',
    '            set value 0',
    `        else if contains -- $word (${fn}_valued "$at")`,
    '            set value 1',
    `        else if not string match -q -- '-*' $word; and contains -- $word (${fn}_commands "$at")`,
    '            set at (string trim -- "$at $word")',
    '        end',
    '    end',
    '    echo $at',
    'end',
    '',
    `function ${fn}_at --argument-names at`,
    `    set -l reached (${fn}_path)`,
    '    test "$reached" = "$at"',
    'end',
    '',
    ...lines,
    '',
  ].join('\n');
}
