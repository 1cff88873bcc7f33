/**
 * Recognizes operations — acts with an effect outside the conversation — in a harness's tool calls:
 * file changes, commits, pushes, pull requests and test runs. Harness-neutral: it reads the
 * normalized `tool.call` (`shell`, `files`) and `tool.result` payloads every adapter produces. A
 * command is recognized however it is run: behind wrappers (`timeout 60 git push`, `sudo`, `nice`,
 * `env`, …), by an absolute path (`/usr/bin/git commit`) or in a nested shell (`sh -c 'git push'`),
 * read the same way the gates read them (core/command-wrappers.ts).
 * Pure; what it cannot tell from the call and its result it leaves out.
 */
import { programName, unwrap } from '../core/command-wrappers.js';
import { readWords } from '../core/shell-words.js';
import type { EventData, OperationData } from './schema.js';

type ToolCall = EventData<'tool.call'>;
type ToolResult = EventData<'tool.result'>;

/** The operations one finished tool call performed, in command order. */
export function operationsOf(call: ToolCall, result: ToolResult | undefined): OperationData[] {
  const operations: OperationData[] = [];
  if (call.files && call.files.length > 0 && (result?.ok ?? true)) {
    operations.push({ kind: 'file_change', files: call.files, toolId: call.id });
  }
  if (call.shell !== undefined) {
    const commands = commandsRun(call.shell, 0);
    commands.forEach((command, index) => {
      // A command line's exit status is its last command's: it says nothing sure of the others.
      const operation = shellOperation(command, call.id, result, index === commands.length - 1);
      if (operation) operations.push(operation);
    });
  }
  return operations;
}

/** One command a command line runs: its words from its name on (wrappers dropped), and how it was written. */
interface RunCommand {
  /** The name without its directory (`git`, not `/usr/bin/git`). */
  readonly words: readonly string[];
  /** The command as written: for a command behind a wrapper, the whole of it (`timeout 60 git push`). */
  readonly raw: string;
}

/** 8 layers of wrappers and nested shells, as the gates read (src/gates/command-line.ts). */
const NESTING_LIMIT = 8;

/** The commands `line` runs, in order, through wrappers and nested shells. */
function commandsRun(line: string, nesting: number): RunCommand[] {
  return shellSegments(line).flatMap((segment) => unwrapped(readWords(segment.raw), segment.raw, nesting));
}

function unwrapped(words: readonly string[], raw: string, nesting: number): RunCommand[] {
  const found = nesting < NESTING_LIMIT ? unwrap(words) : undefined;
  if (found === undefined) {
    const [name, ...rest] = words;
    return [{ words: name === undefined ? [] : [programName(name), ...rest], raw }];
  }
  return found.runs.flatMap((run) =>
    run.kind === 'command'
      ? unwrapped(words.slice(run.from, run.until), raw, nesting + 1)
      : commandsRun(run.text, nesting + 1),
  );
}

/** One command of a command line: its words with the quotes removed (`text`), and as written (`raw`). */
export interface ShellSegment {
  readonly text: string;
  readonly raw: string;
}

/**
 * Splits a shell command line at `&&`, `||`, `;` and `|` outside quotes, each command with its
 * quotes removed (`text`, what is parsed) and as written (`raw`, what a record quotes).
 */
export function shellSegments(command: string): ShellSegment[] {
  const segments: ShellSegment[] = [];
  let current = '';
  let raw = '';
  let quote: string | undefined;
  const end = () => {
    if (current.trim()) segments.push({ text: current.trim(), raw: raw.trim() });
    current = '';
    raw = '';
  };
  for (let i = 0; i < command.length; i++) {
    const char = command[i] as string;
    if (quote) {
      raw += char;
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"') {
        const next = command[++i] ?? '';
        raw += next;
        current += next;
      } else current += char;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      raw += char;
      continue;
    }
    if (char === ';' || char === '|' || char === '&' || char === '\n') {
      if (char === '&' && command[i + 1] !== '&' && command[i - 1] !== '&') {
        current += char;
        raw += char;
        continue;
      }
      end();
      continue;
    }
    current += char;
    raw += char;
  }
  end();
  return segments;
}

const TEST_COMMAND =
  /^(?:(?:\S+=\S*\s+)*)(?:npm\s+(?:test|t|run\s+test\S*)|pnpm\s+(?:test|run\s+test\S*)|yarn\s+test|bun\s+test|deno\s+test|npx\s+(?:vitest|jest|mocha|playwright\s+test)|vitest|jest|mocha|pytest|python3?\s+-m\s+(?:pytest|unittest)|go\s+test|cargo\s+(?:test|nextest)|node\s+--test|make\s+(?:test|check)|mvn\s+(?:test|verify)|gradle\s+test|gradlew\s+test|rspec|bundle\s+exec\s+rspec|ctest|tox)\b/;

/**
 * The operation one command of a command line performed. `last`: it is the line's last command,
 * whose exit status the result's is; an earlier command's outcome is read from what it printed
 * (git's `[branch sha] subject`, a pushed ref line), never from the line's exit code.
 */
function shellOperation(
  { words, raw: command }: RunCommand,
  toolId: string,
  result: ToolResult | undefined,
  last: boolean,
): OperationData | undefined {
  const ok = result?.ok ?? false;
  const output = result?.output ?? '';
  const segment = words.join(' ');
  const verbIndex = words[0] === 'git' ? gitVerbIndex(words) : -1;
  const gitVerb = words[verbIndex];
  const exitCode = last ? result?.exitCode : undefined;
  /** How the call ended: `printed` when its own output shows it succeeded; the exit code, and why when it failed. */
  const ending = (succeeded: boolean) => {
    // Only a call that failed has a line that says why (gh exiting 0 without a URL has none).
    const why = succeeded || ok ? undefined : errorLine(output);
    return {
      ok: succeeded,
      ...(exitCode !== undefined && { exitCode }),
      ...(why !== undefined && { error: why }),
    };
  };
  if (gitVerb === 'commit') {
    const reported = /^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$/m.exec(output);
    const subject = reported?.[2] ?? /(?:^|\s)-(?:a?m)\s+(\S.*)$/.exec(segment)?.[1]?.split(/\s+-/)[0];
    return {
      kind: 'commit',
      command,
      // git prints `[branch sha] subject` only for a commit it made, whatever ran after it.
      ...ending(reported !== null || (ok && last)),
      ...(reported?.[1] !== undefined && { sha: reported[1] }),
      ...(subject !== undefined && { subject: subject.trim() }),
      toolId,
    };
  }
  if (gitVerb === 'push') {
    const positional = words.slice(verbIndex + 1).filter((word) => !word.startsWith('-'));
    const remote = positional[0];
    const reportedBranch = /->\s+(\S+)\s*$/m.exec(output)?.[1];
    const refspec = positional[1]
      ?.split(':')
      .pop()
      ?.replace(/^refs\/heads\//, '');
    const branch = reportedBranch ?? (refspec && refspec !== 'HEAD' ? refspec : undefined);
    // `   1a2b3c4..5d6e7f8  HEAD -> branch` (or `+ 1a2b…5d6e (forced update)`): the sha now on the remote.
    const pushedSha = /^\s*[+ ]?\s*[0-9a-f]{7,40}\.\.\.?([0-9a-f]{7,40})\s/m.exec(output)?.[1];
    const refUpdated = /^\s*(?:\*|\+|[0-9a-f]{7,40}\.\.)/m.test(output) && /->/.test(output) && !/^\s*!/m.test(output);
    return {
      kind: 'push',
      command,
      // A ref line without `!` (rejected) is a push git made, whatever ran after it.
      ...ending((ok && last) || refUpdated),
      ...(remote !== undefined && { remote }),
      ...(branch !== undefined && { branch }),
      ...(pushedSha !== undefined && { sha: pushedSha }),
      toolId,
    };
  }
  if (/^gh\s+pr\s+create\b/.test(segment)) {
    const url = /(https?:\/\/\S+\/pull\/(\d+))/.exec(output);
    return {
      kind: 'pull_request',
      command,
      // gh prints the new pull request's URL only once it exists.
      ...ending(url !== null && (ok || !last) && !/already exists/i.test(output)),
      ...(url?.[1] !== undefined && { url: url[1] }),
      ...(url?.[2] !== undefined && { number: Number(url[2]) }),
      toolId,
    };
  }
  if (TEST_COMMAND.test(segment)) {
    const counts = testCounts(output);
    // A runner's own count of failures outranks the tool's status: some harnesses (Gemini CLI)
    // report a shell command that printed output as a success whatever its exit code.
    const failedByCount = (counts?.failed ?? 0) > 0;
    // Before the line's last command, a run passed when the line succeeded or its runner counted passes only.
    const passedByCount = counts?.passed !== undefined && counts.passed > 0 && !failedByCount;
    return {
      kind: 'test_run',
      command,
      passed: (ok || (!last && passedByCount)) && !failedByCount,
      ...(exitCode !== undefined && { exitCode }),
      ...(counts && { counts }),
      toolId,
    };
  }
  return undefined;
}

/** The index of git's subcommand in `git [global options] <verb> …`; -1 when there is none. */
function gitVerbIndex(words: readonly string[]): number {
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as string;
    // -C <path> and -c <name>=<value> take the next word as their value.
    if (word === '-C' || word === '-c') index++;
    else if (!word.startsWith('-')) return index;
  }
  return -1;
}

/** The most a recorded error line keeps: a line, not the command's output. */
const ERROR_LINE_LIMIT = 200;

/** Lines that say why git or gh failed, before any other: git's own first lines are often about something else. */
const WHY_LINE =
  /^(?:fatal|error):|^Author identity unknown|^nothing (?:added )?to commit|^no changes added to commit|^! \[(?:remote )?rejected\]/i;

/**
 * The line of a failed command's output that says why: the first that WHY_LINE knows (`fatal:`,
 * `error:`, `nothing to commit`, `Author identity unknown`, a rejected ref), else the first that is
 * not blank; clipped to ERROR_LINE_LIMIT. Undefined for no output.
 */
export function errorLine(output: string): string | undefined {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    // `Exit code 1` (Claude Code) and `Exit Code: 1` (Gemini CLI) are the harness's, not the command's words.
    .filter((line) => line !== '' && !/^Exit code:? \d+$/i.test(line));
  const line = lines.find((text) => WHY_LINE.test(text)) ?? lines[0];
  if (line === undefined) return undefined;
  return line.length > ERROR_LINE_LIMIT ? `${line.slice(0, ERROR_LINE_LIMIT)}…` : line;
}

/** Reads pass/fail/skip counts from a test runner's summary, when it printed one. */
export function testCounts(output: string): { passed?: number; failed?: number; skipped?: number } | undefined {
  const last = (pattern: RegExp): number | undefined => {
    let value: number | undefined;
    for (const match of output.matchAll(pattern)) value = Number(match[1]);
    return value;
  };
  const passed = last(/(?:^|[\s(,|])(\d+)\s+(?:passed|passing)\b/gm) ?? last(/^[#ℹ]\s+pass\s+(\d+)$/gm);
  const failed = last(/(?:^|[\s(,|])(\d+)\s+(?:failed|failing)\b/gm) ?? last(/^[#ℹ]\s+fail\s+(\d+)$/gm);
  const skipped = last(/(?:^|[\s(,|])(\d+)\s+(?:skipped|pending)\b/gm) ?? last(/^[#ℹ]\s+skipped\s+(\d+)$/gm);
  if (passed === undefined && failed === undefined && skipped === undefined) return undefined;
  return {
    ...(passed !== undefined && { passed }),
    ...(failed !== undefined && { failed }),
    ...(skipped !== undefined && { skipped }),
  };
}
