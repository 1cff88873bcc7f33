/**
 * `harmflow completion bash|zsh|fish` as a user loads it: the built bin prints the script, a real
 * shell loads it and completes. bash's completion function is called as bash calls it (COMP_WORDS,
 * COMP_CWORD, then COMPREPLY); fish answers `complete -C`; zsh completes in a real terminal (tmux),
 * Tab pressed. The bash script is also held to the program: for every command, the options it offers
 * after `--` are exactly that command's, so the script cannot go stale.
 *
 * zsh and fish are Debian's `zsh` and `fish`. Without one, its tests are skipped with one line; with
 * HARMFLOW_REQUIRE_SHELLS=1 (CI) a missing shell is a failure, never a skip. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { allCommands, completionTree } from '../../src/cli/completion-tree.js';
import { buildProgram } from '../../src/cli/program.js';
import { EXIT } from '../../src/core/errors.js';
import { startTerminal, tmuxAvailable } from '../tui/tmux.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'harmflow-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The script `harmflow completion <shell>` prints, in a file. */
function script(shell: string): string {
  const ran = spawnSync(process.execPath, [BIN, 'completion', shell], { encoding: 'utf8' });
  expect(ran.status, ran.stderr).toBe(EXIT.ok);
  const file = join(dir, `harmflow.${shell}`);
  writeFileSync(file, ran.stdout);
  return file;
}

/** True when `shell` runs; otherwise one line, or a throw when HARMFLOW_REQUIRE_SHELLS=1. */
function shellAvailable(shell: string): boolean {
  if (spawnSync(shell, ['-c', 'exit 0']).status === 0) return true;
  const how = `install it (\`apt-get install -y ${shell}\`)`;
  if (process.env.HARMFLOW_REQUIRE_SHELLS === '1')
    throw new Error(`HARMFLOW_REQUIRE_SHELLS=1 but ${shell} does not run: ${how}`);
  process.stdout.write(`${shell} completion tests skipped (no ${shell}): ${how}\n`);
  return false;
}

/** What bash's completion of each of `lines` (the words typed, the last one being completed) offers. */
function bashCompletes(lines: readonly (readonly string[])[]): string[][] {
  const calls = lines.map((words) => `t ${words.map((word) => `'${word}'`).join(' ')}`).join('\n');
  const ran = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      `source '${script('bash')}'
t() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _harmflow; echo "\${COMPREPLY[*]}"; }
${calls}`,
    ],
    { encoding: 'utf8' },
  );
  expect(ran.status, ran.stderr).toBe(0);
  return ran.stdout
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => line.split(' ').filter(Boolean));
}

describe('harmflow completion bash', () => {
  it('completes a verb prefix, a subcommand, an option and an argument in a real bash', () => {
    expect(
      bashCompletes([
        ['harmflow', 'sub'],
        ['harmflow', 'sw'],
        ['harmflow', 'admission', 'h'],
        ['harmflow', 'admission', '--url', 'http://127.0.0.1:7878', 're'],
        ['harmflow', 'cancel', '--no'],
        ['harmflow', 'completion', ''],
        ['harmflow', 'schema', 'c'],
        // The value of an option that names none: nothing here, so bash completes file names.
        ['harmflow', 'send', '--home', ''],
      ]),
    ).toEqual([['submit'], ['switch'], ['hold'], ['release'], ['--no-wait'], ['bash', 'zsh', 'fish'], ['context'], []]);
  });

  it('is registered for harmflow, with file names where it offers nothing', () => {
    const ran = spawnSync('bash', ['--norc', '--noprofile', '-c', `source '${script('bash')}'; complete -p harmflow`], {
      encoding: 'utf8',
    });
    expect(ran.stdout.trim()).toBe('complete -o default -F _harmflow harmflow');
  });

  it("offers every command's own options and subcommands, as the program has them", () => {
    const commands = allCommands(completionTree(buildProgram()));
    const words = (path: string, last: string) => ['harmflow', ...(path === '' ? [] : path.split(' ')), last];
    const options = bashCompletes(commands.map((command) => words(command.path, '--')));
    const subcommands = bashCompletes(commands.map((command) => words(command.path, '')));
    commands.forEach((command, at) => {
      const long = command.options.flatMap((option) => option.flags.filter((flag) => flag.startsWith('--')));
      expect(options[at], command.path).toEqual(long);
      expect(subcommands[at], command.path).toEqual([...command.commands.map((sub) => sub.name), ...command.values]);
    });
    expect(subcommands[0]).toContain('completion');
  });
});

describe.runIf(shellAvailable('fish'))('harmflow completion fish', () => {
  it('completes verbs, subcommands, options and arguments in a real fish', () => {
    const file = script('fish');
    const complete = (line: string) => {
      const ran = spawnSync('fish', ['--no-config', '-c', `source '${file}'; complete -C '${line}'`], {
        encoding: 'utf8',
      });
      expect(ran.status, ran.stderr).toBe(0);
      return ran.stdout
        .split('\n')
        .filter(Boolean)
        .map((entry) => entry.split('\t')[0]);
    };
    expect(complete('harmflow sub')).toEqual(['submit']);
    expect(complete('harmflow admission --url http://x re')).toEqual(['release']);
    expect(complete('harmflow cancel --no')).toEqual(['--no-wait']);
    expect(complete('harmflow completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
  });
});

describe.runIf(shellAvailable('zsh') && tmuxAvailable())('harmflow completion zsh', () => {
  it('completes as Tab is pressed in a real zsh', { timeout: 30_000 }, async () => {
    const file = script('zsh');
    const terminal = await startTerminal({ command: ['zsh', '-f'], env: {}, width: 120, height: 20 });
    try {
      await terminal.type(`autoload -Uz compinit && compinit -u -D && source '${file}' && clear`);
      await terminal.press('Enter');
      await terminal.type('harmflow adm');
      await terminal.press('Tab');
      // capture-pane drops a line's trailing spaces: the completed word is what shows it.
      await terminal.screenWhere((screen) => screen.includes('harmflow admission'));
      await terminal.type('h');
      await terminal.press('Tab');
      await terminal.screenWhere((screen) => screen.includes('harmflow admission hold'));
      await terminal.press('C-u');
      await terminal.type('harmflow cancel --no-');
      await terminal.press('Tab');
      await terminal.screenWhere((screen) => screen.includes('harmflow cancel --no-wait'));
    } finally {
      await terminal.kill();
    }
  });
});

describe('harmflow completion of a shell it has no script for', () => {
  it('exits 2 with one line naming the shells', () => {
    const ran = spawnSync(process.execPath, [BIN, 'completion', 'tcsh'], { encoding: 'utf8' });
    expect(ran.status).toBe(EXIT.usage);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toContain('bash, zsh, fish');
  });
});
