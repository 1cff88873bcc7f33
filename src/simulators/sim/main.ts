/**
 * `sim`: a stand-in agent CLI. It plays Claude Code or Codex (`HARMFLOW_SIM_AS`) from a scenario file
 * (`HARMFLOW_SIM_SCENARIO`), takes the real CLI's argv (without the binary name), prints exactly that
 * CLI's stream format, and really performs the scenario's steps in its cwd (the execution's worktree).
 * A missing or invalid environment, scenario or command line is one stderr line and exit 2. See
 * docs/simulator.md.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { describeError } from '../../core/errors.js';
import { SIMULATED_HARNESSES, type SimulatedHarness } from '../../core/outcome.js';
import { type Invocation, InvocationError, parseClaudeArgv, parseCodexArgv } from './argv.js';
import { CLAUDE_DEFAULT_MAX_RETRIES, CLAUDE_DEFAULT_MODEL, ClaudeStream } from './claude-stream.js';
import { CODEX_DEFAULT_STREAM_MAX_RETRIES, CodexStream } from './codex-stream.js';
import { describeContext, findContextPath, planSections, readContext, Workspace } from './handoff.js';
import { hang } from './hang.js';
import { loadHooks } from './hooks.js';
import { type Ending, loadScenario, type QuotaVariant, type Scenario, ScenarioError, stepsFor } from './scenario.js';
import { recordSession, sessionKnown, unknownSession } from './sessions.js';
import { performStep } from './steps.js';
import type { AgentStream, FinalEnding } from './stream.js';

/** Exit code for a simulator that cannot start: the real CLIs use 2 for usage errors. */
const EXIT_USAGE = 2;

/** How far ahead a quota resets when the scenario does not say: 2 h (five-hour window), 3 days (weekly). */
const DEFAULT_RESET_MS = { weekly: 3 * 86_400_000, other: 2 * 3_600_000 };

/** Claude Code clamps `CLAUDE_CODE_MAX_RETRIES` to 15 (reference §3.5). */
const CLAUDE_MAX_RETRIES_CAP = 15;

const QUOTA_VARIANTS_OF: Record<SimulatedHarness, readonly QuotaVariant[]> = {
  'claude-code': ['subscription', 'weekly', 'credit'],
  codex: ['insufficient_quota', 'usage_limit'],
};

class StartError extends Error {}

function print(lines: readonly object[]): void {
  for (const line of lines) process.stdout.write(`${JSON.stringify(line)}\n`);
}

function printRaw(line: string): void {
  process.stdout.write(`${line}\n`);
}

function claudeMaxRetries(): number {
  const value = Number.parseInt(process.env.CLAUDE_CODE_MAX_RETRIES ?? '', 10);
  return Number.isNaN(value) ? CLAUDE_DEFAULT_MAX_RETRIES : Math.min(Math.max(value, 0), CLAUDE_MAX_RETRIES_CAP);
}

function gatewayHost(): string | undefined {
  try {
    return process.env.ANTHROPIC_BASE_URL ? new URL(process.env.ANTHROPIC_BASE_URL).host : undefined;
  } catch {
    return undefined;
  }
}

function createStream(harness: SimulatedHarness, invocation: Invocation, scenario: Scenario, cwd: string): AgentStream {
  if (harness === 'claude-code') {
    const gateway = gatewayHost();
    return new ClaudeStream({
      sessionId: invocation.resumeId ?? invocation.sessionId ?? randomUUID(),
      model: invocation.model ?? scenario.model ?? CLAUDE_DEFAULT_MODEL,
      cwd,
      apiKeySource: process.env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : 'none',
      maxRetries: claudeMaxRetries(),
      ...(gateway !== undefined && { gateway }),
    });
  }
  return new CodexStream({
    threadId: invocation.resumeId ?? randomUUID(),
    streamMaxRetries: invocation.streamMaxRetries ?? CODEX_DEFAULT_STREAM_MAX_RETRIES,
  });
}

/** The ending as the played harness has it: a variant it does not have falls back to its default. */
function finalEnding(
  ending: Exclude<Ending, { kind: 'hang' }>,
  harness: SimulatedHarness,
  summary: string,
): FinalEnding {
  if (ending.kind === 'complete') {
    const { utilization } = ending;
    return { kind: 'complete', message: ending.message ?? summary, ...(utilization !== undefined && { utilization }) };
  }
  if (ending.kind !== 'quota') return ending;
  const variant =
    ending.variant !== undefined && QUOTA_VARIANTS_OF[harness].includes(ending.variant) ? ending.variant : undefined;
  const resetsIn = ending.resetsInMs ?? (variant === 'weekly' ? DEFAULT_RESET_MS.weekly : DEFAULT_RESET_MS.other);
  return { kind: 'quota', resetsAt: new Date(Date.now() + resetsIn), ...(variant !== undefined && { variant }) };
}

async function start(): Promise<{ harness: SimulatedHarness; scenario: Scenario; invocation: Invocation }> {
  const harness = z.enum(SIMULATED_HARNESSES).safeParse(process.env.HARMFLOW_SIM_AS);
  if (!harness.success) {
    throw new StartError(
      `HARMFLOW_SIM_AS must be one of ${SIMULATED_HARNESSES.join(', ')} (got ${JSON.stringify(process.env.HARMFLOW_SIM_AS ?? '')})`,
    );
  }
  const path = process.env.HARMFLOW_SIM_SCENARIO;
  if (!path) throw new StartError('HARMFLOW_SIM_SCENARIO is not set (the scenario file to play)');
  const scenario = await loadScenario(path);
  const argv = process.argv.slice(2);
  const invocation =
    harness.data === 'claude-code' ? parseClaudeArgv(argv) : parseCodexArgv(argv, process.env.CODEX_HOME);
  return { harness: harness.data, scenario, invocation };
}

async function run(): Promise<void> {
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start();
  } catch (error) {
    if (error instanceof StartError || error instanceof ScenarioError || error instanceof InvocationError) {
      process.stderr.write(`sim: ${error.message}\n`);
      process.exitCode = EXIT_USAGE;
      return;
    }
    throw error;
  }
  const { harness, scenario, invocation } = started;
  const cwd = process.cwd();
  if (invocation.resumeId !== undefined && !sessionKnown(harness, invocation.resumeId, process.env)) {
    const failure = unknownSession(harness, invocation.resumeId);
    print(failure.stdout);
    for (const line of failure.stderr) process.stderr.write(`${line}\n`);
    process.exitCode = failure.exitCode;
    return;
  }
  const stream = createStream(harness, invocation, scenario, cwd);
  recordSession(harness, stream.sessionId, cwd, process.env);
  const opening = stream.opening();
  for (const line of opening.stderr) process.stderr.write(`${line}\n`);
  print(opening.stdout);

  const played = stepsFor(scenario, invocation.prompt);
  const contextPath = findContextPath(invocation.prompt);
  let workspace: Workspace | undefined;
  if (contextPath !== undefined) {
    const read = await readContext(contextPath);
    print(stream.message(describeContext(contextPath, read)));
    workspace = new Workspace(cwd, 'context' in read ? read.context : undefined);
  }
  const hooks =
    invocation.hooksFile === undefined
      ? undefined
      : loadHooks(invocation.hooksFile, { sessionId: stream.sessionId, cwd });
  const ctx = {
    cwd,
    stream,
    print,
    printRaw,
    sections: planSections(played),
    ...(workspace !== undefined && { workspace }),
    ...(hooks && { hooks }),
  };

  let ending: Ending = { kind: 'complete' };
  const counts = { done: 0, skipped: 0 };
  for (const step of played) {
    if (scenario.paceMs > 0) await sleep(scenario.paceMs);
    if (step.kind === 'end') {
      ending = step.ending;
      break;
    }
    counts[await performStep(step, ctx)] += 1;
  }
  if (scenario.paceMs > 0) await sleep(scenario.paceMs);
  if (ending.kind === 'hang') {
    await hang(ending);
    return;
  }
  const already = counts.skipped > 0 ? `, ${counts.skipped} of them already done before` : '';
  const summary = `Finished: ${counts.done + counts.skipped} steps${already}.`;
  if (ending.kind === 'complete') hooks?.stop();
  const output = stream.ending(finalEnding(ending, harness, summary));
  print(output.stdout);
  for (const line of output.stderr) process.stderr.write(`${line}\n`);
  process.exitCode = output.exitCode;
}

run().catch((error: unknown) => {
  process.stderr.write(`sim: internal error: ${describeError(error)}\n`);
  process.exitCode = 1;
});
