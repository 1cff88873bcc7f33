/** `harmflow run TASK` — runs a task file as one execution and prints its timeline as it happens. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT } from '../core/errors.js';
import type { ExecutionState } from '../core/outcome.js';
import { loadTaskFile } from '../core/task-file.js';
import { inertText } from '../core/terminal-text.js';
import { type AttemptContext, StoredContext } from '../execution/context-schema.js';
import { harnessPath, runTask } from '../execution/engine.js';
import { preflight } from '../execution/preflight.js';
import { openHome } from './context-home.js';
import { terminalOutput } from './terminal-output.js';
import { timelineLines } from './timeline-output.js';

/** The warnings `run` also writes on stderr: a pull request asked for that cannot be, or was not, opened. */
const PULL_REQUEST_WARNINGS: ReadonlySet<string> = new Set(['no_forge', 'pull_request_failed']);

/** The exit code of `run` for each final state (docs/cli.md). */
export function exitCodeFor(state: ExecutionState): number {
  if (state === 'succeeded') return EXIT.ok;
  if (state === 'timed_out') return EXIT.executionTimedOut;
  if (state === 'canceled') return EXIT.executionCanceled;
  return EXIT.executionFailed;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run a task file as one execution (fails over across its harness chain)')
    .argument('<task>', 'the task file (YAML)')
    .option('--json', 'print the result as JSON instead of the timeline')
    .option('--home <dir>', 'state directory (default: $HARMFLOW_HOME or ~/.harmflow)')
    .action(async (taskPath: string, options: { json?: boolean; home?: string }) => {
      const task = loadTaskFile(taskPath);
      // Check before opening the state directory: bad input creates nothing, not even HARMFLOW_HOME.
      const checked = await preflight(task, harnessPath());
      const { home, store } = openHome(options.home);
      const controller = new AbortController();
      const onInterrupt = () => {
        if (controller.signal.aborted) process.exit(EXIT.executionCanceled);
        process.stderr.write('harmflow: canceling the execution (Ctrl-C again to quit at once)\n');
        controller.abort();
      };
      process.on('SIGINT', onInterrupt);
      process.on('SIGTERM', onInterrupt);
      const timeline = timelineLines(terminalOutput(process.stdout, process.env));
      try {
        const result = await runTask(task, {
          home,
          store,
          checked,
          signal: controller.signal,
          onRecord: (record) => {
            // Said on stderr too, with or without --json: a pull request that cannot be or was not opened.
            if (record.type === 'workspace.warning' && PULL_REQUEST_WARNINGS.has(record.data.kind)) {
              process.stderr.write(`harmflow: ${inertText(record.data.message)}\n`);
            }
            const line = options.json ? undefined : timeline(record);
            if (line !== undefined) process.stdout.write(`${line}\n`);
          },
        });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        } else {
          // Inert: the claims quote the harness's own words (core/terminal-text.ts).
          const unconfirmed = lastUnconfirmed(result.contextFile).map((line) => `unconfirmed: ${inertText(line)}\n`);
          process.stdout.write(
            `\nexecution ${result.id}: ${result.state}\n${unconfirmed.join('')}context: ${result.contextFile}\n`,
          );
        }
        process.exitCode = exitCodeFor(result.state);
      } finally {
        process.off('SIGINT', onInterrupt);
        process.off('SIGTERM', onInterrupt);
        await store.close();
      }
    });
}

/**
 * What the execution's last attempt reported completed that HarmFlow did not see (context.json's
 * `unconfirmed`), one line an item: the claims a person should check before trusting the result.
 * Nothing when the file cannot be read (the run's own output already said why).
 */
function lastUnconfirmed(contextFile: string): string[] {
  let last: AttemptContext | undefined;
  try {
    last = StoredContext.parse(JSON.parse(readFileSync(contextFile, 'utf8'))).attempts.at(-1);
  } catch {
    return [];
  }
  if (last === undefined) return [];
  const { number, harness } = last;
  return last.workItems.flatMap((item) =>
    item.unconfirmed === undefined ? [] : [`attempt ${number} (${harness}) "${item.text}": ${item.unconfirmed}`],
  );
}
