/**
 * Remote content fed to an interpreter on the line that downloads it — what the `commands` gate's
 * `pipe-to-shell` rule refuses. An interpreter (interpreters.ts) runs downloaded code when
 *
 * - it reads its program from stdin and a command before it in its pipeline downloads (`curl … |
 *   python3`, `wget -qO- … | tee x | sh`), or its stdin is redirected from a download (`sh < <(curl
 *   …)`, `bash <<< "$(curl …)"`) or from a file downloaded earlier on the line;
 * - its inline code or its script is a download's output (`python3 -c "$(curl …)"`, `bash <(curl …)`,
 *   `eval "$(curl …)"`), or its script is a URL (`deno run https://…`);
 * - its script, or the command itself (`./install.sh`), is a file a download wrote earlier on the line
 *   (`curl -o i.sh …`, `curl … > i.sh`, `wget -O i.sh …`, `wget https://…/i.sh`, `… | tee i.sh`).
 *
 * A command whose name only run time knows, reading a download on its stdin, is taken for an
 * interpreter. Data is not code: `curl … | python3 parse.py`, `curl … | python3 -c '…json.load…'` and
 * `curl … | jq` read the download as input and are left alone.
 */
import { basename } from 'node:path';
import { type RunCommand, runCommands } from './command-line.js';
import { writtenFiles } from './file-writes.js';
import { programOf } from './interpreters.js';
import { wordPath } from './paths.js';
import { type ShellWord, substitutions } from './shell.js';

/** Commands that download: what they print or write is remote content. */
const FETCHERS: ReadonlySet<string> = new Set(['curl', 'wget', 'http', 'https', 'xh', 'fetch', 'aria2c']);

/** How `command` runs code downloaded on the same `line`, for the refusal; undefined when it does not. */
export function fetchedCode(
  command: RunCommand,
  line: readonly RunCommand[],
  home: string | undefined,
): string | undefined {
  const program = programOf(command.words);
  const downloads = () => downloaded(line.slice(0, line.indexOf(command)), home);
  if (program === undefined && command.hidden?.anyName !== true) return ranFile(command, downloads(), home);
  const name = program?.interpreter ?? command.program?.value ?? 'the command';
  if (program === undefined || program.stdin) {
    const fetcher = command.upstream.find((earlier) => FETCHERS.has(earlier.name));
    if (fetcher) return `${name} reads its program from what ${fetcher.name} downloads`;
    for (const redirection of command.redirections.filter((each) => !each.writes)) {
      const source = fetcherIn(redirection.target, home) ?? fileFrom(redirection.target, command, downloads(), home);
      if (source) return `${name} reads its program from ${source}`;
    }
  }
  for (const word of [program?.code, program?.script]) {
    const source = word && fetcherIn(word, home);
    if (source) return `${name} runs ${source}`;
  }
  const script = program?.script;
  if (script && /^https?:\/\//.test(script.value)) return `${name} runs ${script.value}`;
  const file = script && fileFrom(script, command, downloads(), home);
  return file ? `${name} runs ${file}` : ranFile(command, downloads(), home);
}

/** The file `command` runs by its path (`./install.sh`) when a download wrote it. */
function ranFile(
  command: RunCommand,
  files: ReadonlyMap<string, string>,
  home: string | undefined,
): string | undefined {
  const program = command.program;
  if (program === undefined || !program.value.includes('/')) return undefined;
  const file = fileFrom(program, command, files, home);
  return file && `it runs ${file}`;
}

/** "i.sh, which curl wrote just before" when `word` names a file in `files` (path → downloader). */
function fileFrom(
  word: ShellWord,
  command: RunCommand,
  files: ReadonlyMap<string, string>,
  home: string | undefined,
): string | undefined {
  const path = wordPath(word, command.cwd, home)?.path;
  const fetcher = path === undefined ? undefined : files.get(path);
  return fetcher && `${word.value}, which ${fetcher} wrote just before`;
}

/** "what curl downloads" when `word` is the output of a download: `$(curl …)`, `` `wget …` ``, `<(curl …)`. */
function fetcherIn(word: ShellWord, home: string | undefined): string | undefined {
  for (const line of substitutions(word)) {
    const fetcher = runCommands(line, undefined, home).find((each) => FETCHERS.has(each.name));
    if (fetcher) return `what ${fetcher.name} downloads`;
  }
  return undefined;
}

/** The files the commands of `before` downloaded to, each with the command that wrote it. */
function downloaded(before: readonly RunCommand[], home: string | undefined): Map<string, string> {
  const files = new Map<string, string>();
  for (const command of before) {
    const fetcher = FETCHERS.has(command.name) ? command : command.upstream.find((each) => FETCHERS.has(each.name));
    if (fetcher === undefined) continue;
    const own = fetcher === command;
    const words: ShellWord[] = [
      ...command.redirections.filter((redirection) => redirection.writes).map((redirection) => redirection.target),
      ...(own || command.name === 'tee' ? writtenFiles(command.words) : []),
      ...(own ? namedAfterUrl(command) : []),
    ];
    for (const word of words) {
      const path = wordPath(word, command.cwd, home)?.path;
      if (path !== undefined) files.set(path, fetcher.name);
    }
  }
  return files;
}

/**
 * The files a download names after its URL: `curl -O`/`--remote-name`, and `wget` without
 * `-O`/`--output-document`, save each URL as its last path segment in the directory they run in.
 */
function namedAfterUrl(command: RunCommand): ShellWord[] {
  const values = command.words.map((word) => word.value);
  const remoteName =
    command.name === 'curl'
      ? values.some((value) => /^-[a-zA-Z]*O[a-zA-Z]*$/.test(value) || value.startsWith('--remote-name'))
      : command.name === 'wget' &&
        !values.some((value) => /^-[a-zA-Z]*O/.test(value) || value.startsWith('--output-document'));
  if (!remoteName) return [];
  return command.words.flatMap((word) => {
    if (!/^https?:\/\//.test(word.value)) return [];
    try {
      const name = basename(new URL(word.value).pathname);
      return name === '' ? [] : [{ value: name, expands: false, glob: false, tilde: false }];
    } catch {
      return [];
    }
  });
}
