/**
 * Recognizes operations — acts with an effect outside the conversation — in a harness's tool calls:
 * file changes, commits, pushes, pull requests and test runs. Harness-neutral: it reads the
 * normalized `tool.call` (`shell`, `files`) and `tool.result` payloads every adapter produces.
 * Pure; what it cannot tell from the call and its result it leaves out.
 */
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
    for (const segment of splitShell(call.shell)) {
      const operation = shellOperation(segment, call.id, result);
      if (operation) operations.push(operation);
    }
  }
  return operations;
}

/** Splits a shell command line at `&&`, `||`, `;` and `|` outside quotes. */
export function splitShell(command: string): string[] {
  const segments: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"') current += command[++i] ?? '';
      else current += char;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      continue;
    }
    if (char === ';' || char === '|' || char === '&' || char === '\n') {
      if (char === '&' && command[i + 1] !== '&' && command[i - 1] !== '&') {
        current += char;
        continue;
      }
      if (current.trim()) segments.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  if (current.trim()) segments.push(current.trim());
  return segments;
}

const TEST_COMMAND =
  /^(?:(?:\S+=\S*\s+)*)(?:npm\s+(?:test|t|run\s+test\S*)|pnpm\s+(?:test|run\s+test\S*)|yarn\s+test|bun\s+test|deno\s+test|npx\s+(?:vitest|jest|mocha|playwright\s+test)|vitest|jest|mocha|pytest|python3?\s+-m\s+(?:pytest|unittest)|go\s+test|cargo\s+(?:test|nextest)|node\s+--test|make\s+(?:test|check)|mvn\s+(?:test|verify)|gradle\s+test|\.\/gradlew\s+test|rspec|bundle\s+exec\s+rspec|ctest|tox)\b/;

function shellOperation(segment: string, toolId: string, result: ToolResult | undefined): OperationData | undefined {
  const ok = result?.ok ?? false;
  const output = result?.output ?? '';
  const words = segment.split(/\s+/);
  const verbIndex = words[0] === 'git' ? gitVerbIndex(words) : -1;
  const gitVerb = words[verbIndex];
  if (gitVerb === 'commit') {
    const reported = /^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$/m.exec(output);
    const subject = reported?.[2] ?? /(?:^|\s)-(?:a?m)\s+(\S.*)$/.exec(segment)?.[1]?.split(/\s+-/)[0];
    return {
      kind: 'commit',
      command: segment,
      ok,
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
    return {
      kind: 'push',
      command: segment,
      ok,
      ...(remote !== undefined && { remote }),
      ...(branch !== undefined && { branch }),
      toolId,
    };
  }
  if (/^gh\s+pr\s+create\b/.test(segment)) {
    const url = /(https?:\/\/\S+\/pull\/(\d+))/.exec(output);
    return {
      kind: 'pull_request',
      command: segment,
      ok: ok && url !== null,
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
    return {
      kind: 'test_run',
      command: segment,
      passed: ok && !failedByCount,
      ...(result?.exitCode !== undefined && { exitCode: result.exitCode }),
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
