/**
 * Runs one turn of an attempt: starts the harness (or the simulator playing it) in the worktree with
 * a private home (resuming the attempt's harness session for a follow-up turn), in the execution's
 * OS sandbox when it has one (attempt-sandbox.ts), turns its stdout into records as lines arrive,
 * holds it to the execution's deadline and to cancellation, and classifies how it ended. The process
 * is started through src/proc, which owns its process group; when this returns, no process of the
 * attempt is left.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { TaskFileError } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/home.js';
import { setLongTimeout } from '../core/long-timer.js';
import { isSimulatedHarness, SIMULATED_HARNESSES } from '../core/outcome.js';
import type { GitIdentity, HarnessSpec } from '../core/task.js';
import type { HarnessEvent } from '../events/schema.js';
import { createSeenFile, recordSeen } from '../gates/attempt-file.js';
import { gateArgv, gateShellCommand } from '../gates/command.js';
import { dialectOf } from '../gates/dialects.js';
import { workSeen } from '../gates/facts.js';
import { GATE_DIR_ENV } from '../gates/hook-event.js';
import type { Classification, CommandSpec, HarnessAdapter } from '../harnesses/adapter.js';
import { harnessTimeZone } from '../harnesses/wall-time.js';
import { sandboxed } from '../proc/sandbox.js';
import { type InterruptSignal, spawnProcess } from '../proc/spawn.js';
import { FORGE_DIR_ENV, simulatedCommand } from '../simulators/launch.js';
import { gitIdentityEnv } from '../workspace/git-identity.js';
import type { WrittenGates } from './attempt-gates.js';
import type { AttemptObserver } from './attempt-observer.js';
import { type ExecutionSandbox, turnPolicy } from './attempt-sandbox.js';
import { makeCacheFolders } from './cache-folders.js';
import type { CachePlan } from './cache-plan.js';
import { useSharedCaches } from './cache-users.js';
import { type ExecutionControl, switchAskedMessage } from './control.js';
import { GateRecordRelay } from './gate-relay.js';
import type { AttemptRef, Recorder } from './recorder.js';
import { StreamGates } from './stream-gates.js';

export interface AttemptInput {
  readonly ref: AttemptRef;
  readonly adapter: HarnessAdapter;
  readonly spec: HarnessSpec;
  readonly prompt: string;
  /** The harness session to continue (a follow-up turn); absent for an attempt's first turn. */
  readonly resumeSessionId?: string;
  readonly worktree: string;
  /** runs/<execution>/attempts/<n>: raw stdout/stderr and the private home. */
  readonly attemptDir: string;
  /**
   * The harness's private home, when not `<attemptDir>/home`: an attempt that resumes an earlier
   * attempt's session uses that attempt's home, where the CLI keeps its sessions.
   */
  readonly homeDir?: string;
  /** Epoch ms of the execution's one deadline. */
  readonly deadline: number;
  readonly interruptBudgetMs: number;
  readonly path: string;
  /** The host environment, read only for the names a task passes through. */
  readonly hostEnv: NodeJS.ProcessEnv;
  /**
   * The task's git identity (Task.gitIdentity): the harness gets it as the four GIT_* variables,
   * under what the link's own `env`/`passEnv` set. Absent for a task stored without one.
   */
  readonly gitIdentity?: GitIdentity;
  /** Cancels the execution: the turn is interrupted with SIGINT and ends `canceled`. */
  readonly signal?: AbortSignal;
  /**
   * Stops the service (not the execution): the turn is interrupted with SIGINT and ends `canceled`
   * with a message saying so; the execution stays open and is carried on at the next start.
   */
  readonly suspend?: AbortSignal;
  /** Steers the attempt from outside: a switch request ends it `switched`. */
  readonly control?: ExecutionControl;
  readonly recorder: Recorder;
  readonly observer: AttemptObserver;
  /**
   * The attempt's gates, when any is on, as the engine wrote them to the attempt's gates file
   * (attempt-gates.ts): the harness calls the gate runner through its hooks, or, for a harness
   * without hooks, the gates run on its event stream after the fact (stream-gates.ts).
   */
  readonly gates?: WrittenGates;
  /** The execution's OS sandbox (attempt-sandbox.ts); absent: the harness runs without one. */
  readonly sandbox?: ExecutionSandbox;
  /** The fake forge's store a simulated link opens its pull requests in (HomePaths.forge). */
  readonly forgeDir: string;
  /**
   * Where the harness's package and build caches go (the task's `caches`, cache-plan.ts): their
   * variables under the link's own env, their folders made before it starts and writable in its
   * sandbox; with shared caches the turn counts as their user while it runs (cache-users.ts).
   * Absent (`caches: none`): nothing is set.
   */
  readonly caches?: CachePlan;
  /** Called right after the harness process is spawned, with its pid (= its process group id). */
  readonly onSpawned?: (pid: number) => void;
}

export interface AttemptResult extends Classification {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly durationMs: number;
}

const CANCELED: Classification = { outcome: 'canceled', message: 'canceled' };

/** How a turn ends when the service stops under it: the message is what tells it from a cancel. */
const SUSPENDED: Classification = {
  outcome: 'canceled',
  message: 'HarmFlow stopped while this turn ran; the execution carries on when it starts again',
};

/** Runs the attempt to its end; never throws for anything the harness does. */
export async function runAttempt(input: AttemptInput): Promise<AttemptResult> {
  const started = Date.now();
  const homeDir = input.homeDir ?? join(input.attemptDir, 'home');
  mkdirSync(input.attemptDir, { recursive: true });
  mkdirSync(homeDir, { recursive: true });
  const { spec, hookFiles } = harnessCommand(input, homeDir);
  for (const dir of spec.dirs) mkdirSync(join(homeDir, dir), { recursive: true });
  for (const [file, content] of Object.entries(spec.files)) {
    const target = join(homeDir, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content, { mode: 0o600 });
  }

  const timeLeft = input.deadline - started;
  if (timeLeft <= 0)
    return ended(started, { outcome: 'timed_out', message: 'the execution deadline had passed' }, null, null);
  if (input.signal?.aborted) return ended(started, CANCELED, null, null);
  if (input.suspend?.aborted) return ended(started, SUSPENDED, null, null);

  const events: HarnessEvent[] = [];
  const gates = input.gates?.file;
  const hooked = gates !== undefined && input.adapter.hooks !== undefined;
  // The gates record operations themselves after every call when the hook says how each call exited;
  // otherwise the engine records them, from the stream, and tells nothing-twice what they pushed and opened.
  const gatesRecordOperations =
    hooked &&
    gates?.settings.operations === true &&
    input.adapter.hooks?.events.includes('PostToolUse') === true &&
    dialectOf(input.adapter.name).reportsExitStatus;
  const seenBy = { attempt: input.ref.number, harness: input.ref.harness };
  const streamGates =
    gates && !hooked ? new StreamGates(gates, input.attemptDir, input.recorder, input.ref) : undefined;
  const relay =
    gates && hooked && input.recorder.hasListener
      ? new GateRecordRelay(gates.eventsPath, (record) => input.recorder.relay(record))
      : undefined;
  // Each stdout line arrives cut to the line bound (proc/lines.ts); stdout.log keeps it whole.
  const onStdout = (line: string) => {
    const parsed = parser(line);
    for (const event of parsed) {
      // Kept for classify, which reads no `raw` event: a turn that prints 1 GB of lines no adapter
      // recognizes would otherwise hold all of it here until it ends.
      if (event.type !== 'raw') events.push(event);
      input.recorder.harness(event, input.ref);
      const operations = input.observer.observe(event);
      if (!gatesRecordOperations) {
        for (const operation of operations) input.recorder.executor('operation', operation, input.ref);
        if (hooked) recordSeen(input.attemptDir, workSeen(operations, gates.facts.branch, seenBy));
      }
      streamGates?.observe(event);
      streamGates?.learn(operations);
    }
  };
  const parser = input.adapter.createParser();
  const watchStderr = input.adapter.createStderrWatcher?.();
  let interrupted: Classification | undefined;
  const interrupt = (classification: Classification, signal: InterruptSignal = 'SIGTERM') => {
    interrupted ??= classification;
    void child.stop(input.interruptBudgetMs, signal);
  };
  const onStderr = (line: string) => {
    const early = watchStderr?.(line);
    if (early === undefined || interrupted !== undefined) return;
    input.recorder.executor(
      'warning',
      {
        message: `ending the attempt early: stderr shows ${early.outcome}${early.message ? ` (${early.message})` : ''}`,
      },
      input.ref,
    );
    interrupt(early);
  };
  // Made before the harness starts, so that a sandbox can bind it writable (only a file that exists can be).
  if (hooked) createSeenFile(input.attemptDir);
  // Registered before the harness starts: a `harmflow gc` now waits for it, or it for the gc. The
  // folders are made after: a gc that ran meanwhile may have removed one (a sandbox binds only what exists).
  const stopWaiting = () =>
    input.signal?.aborted === true || input.suspend?.aborted === true || Date.now() >= input.deadline;
  const releaseCaches =
    input.caches?.sharedRoot !== undefined
      ? await useSharedCaches(input.caches.sharedRoot, input.caches.execution, stopWaiting)
      : undefined;
  if (releaseCaches !== undefined && stopWaiting()) {
    // Canceled, stopped or out of time while a gc held the caches: the harness never starts.
    releaseCaches();
    if (input.signal?.aborted) return ended(started, CANCELED, null, null);
    if (input.suspend?.aborted) return ended(started, SUSPENDED, null, null);
    return ended(started, { outcome: 'timed_out', message: 'the execution deadline passed' }, null, null);
  }
  try {
    if (input.caches !== undefined) makeCacheFolders(input.caches, spec.env.HOME);
  } catch (error) {
    releaseCaches?.();
    throw error;
  }
  const launch = input.sandbox ? sandboxedCommand(input, input.sandbox, spec, homeDir, hooked, hookFiles) : spec;
  const child = spawnProcess({
    command: launch.command,
    args: launch.args,
    cwd: input.worktree,
    env: spec.env,
    stdoutFile: join(input.attemptDir, 'stdout.log'),
    stderrFile: join(input.attemptDir, 'stderr.log'),
    onLine: (stream, line) => (stream === 'stdout' ? onStdout(line) : onStderr(line)),
  });
  if (child.pid !== undefined) {
    // The group id, for a later process to kill what this one left if it dies (restart recovery).
    writeFileSync(join(input.attemptDir, 'pgid'), `${child.pid}\n`, { mode: PRIVATE_FILE_MODE });
    input.onSpawned?.(child.pid);
  }

  // A long timer: a deadline weeks away is past what one setTimeout can wait (core/long-timer.ts).
  const deadlineTimer = setLongTimeout(
    () => interrupt({ outcome: 'timed_out', message: 'the execution deadline passed' }),
    // From now: a turn that waited for a gc of the caches has that much less left.
    Math.max(0, input.deadline - Date.now()),
  );
  const onAbort = () => interrupt(CANCELED, 'SIGINT');
  const onSuspend = () => interrupt(SUSPENDED, 'SIGINT');
  input.signal?.addEventListener('abort', onAbort, { once: true });
  input.suspend?.addEventListener('abort', onSuspend, { once: true });
  // The request stays pending: the drive carries it out once the attempt has ended.
  const unwatch = input.control?.watchSwitch(() => {
    const asked = input.control?.pendingSwitch();
    if (asked !== undefined) interrupt({ outcome: 'switched', message: switchAskedMessage(asked) }, 'SIGINT');
  });
  const exit = await child.exited;
  releaseCaches?.();
  await relay?.stop();
  deadlineTimer.clear();
  input.signal?.removeEventListener('abort', onAbort);
  input.suspend?.removeEventListener('abort', onSuspend);
  unwatch?.();

  const classification: Classification =
    interrupted ??
    (exit.error !== undefined
      ? { outcome: 'crashed', message: exit.error }
      : input.adapter.classify({
          exitCode: exit.exitCode,
          signal: exit.signal,
          events,
          stderrTail: child.stderrTail(),
          timeZone: harnessTimeZone(spec.env),
        }));
  return ended(started, classification, exit.exitCode, exit.signal);
}

/** `spec` as run in the execution's sandbox. */
function sandboxedCommand(
  input: AttemptInput,
  sandbox: ExecutionSandbox,
  spec: CommandSpec,
  homeDir: string,
  gateRunner: boolean,
  hookFiles: readonly string[],
) {
  const policy = turnPolicy(sandbox, {
    worktree: input.worktree,
    attemptDir: input.attemptDir,
    homeDir,
    gateRunner,
    hookFiles: hookFiles.map((file) => join(homeDir, file)),
    caches: input.caches?.writable ?? [],
    env: spec.env,
    reads: [spec.command, ...(input.spec.simulate !== undefined ? [input.spec.simulate] : [])],
  });
  return sandboxed(spec, input.worktree, policy, sandbox.tools);
}

/**
 * The harness's command, with the gates' hooks installed when the attempt has gates, and the files
 * of `spec.files` (relative to the home) the hooks' install wrote or changed.
 */
function harnessCommand(input: AttemptInput, homeDir: string): { spec: CommandSpec; hookFiles: readonly string[] } {
  let hookFiles: readonly string[] = [];
  const taskEnv: Record<string, string> = {};
  for (const name of input.spec.passEnv) {
    const value = input.hostEnv[name];
    if (value !== undefined) taskEnv[name] = value;
  }
  Object.assign(taskEnv, input.spec.env);
  // Always a TZ, so the zone the CLI writes wall times in is the one classify reads them in; the
  // task's git identity under the link's own, since the private HOME hides the user's git config.
  const identity = input.gitIdentity === undefined ? {} : gitIdentityEnv(input.gitIdentity);
  // The caches' variables under the link's own: a task that sets npm_config_cache keeps its own.
  const env = { ...identity, TZ: harnessTimeZone(taskEnv), ...input.caches?.env, ...taskEnv };
  let command = input.adapter.command({
    prompt: input.prompt,
    cwd: input.worktree,
    homeDir,
    ...(input.spec.model !== undefined && { model: input.spec.model }),
    extraArgs: input.spec.args,
    env,
    path: input.path,
    ...(input.resumeSessionId !== undefined && { resumeSessionId: input.resumeSessionId }),
  });
  if (input.gates !== undefined && input.adapter.hooks !== undefined) {
    const env = { [GATE_DIR_ENV]: input.attemptDir };
    const installed = input.adapter.hooks.install(command, {
      shellCommand: gateShellCommand,
      argv: gateArgv,
      homeDir,
      env,
      gatesSha256: input.gates.sha256,
    });
    // The files the install wrote or changed: what a sandbox keeps read-only.
    const before = command.files;
    hookFiles = Object.keys(installed.files).filter((file) => installed.files[file] !== before[file]);
    command = { ...installed, env: { ...installed.env, ...env } };
  }
  if (input.spec.simulate === undefined) return { spec: command, hookFiles };
  if (!isSimulatedHarness(input.adapter.name)) {
    throw new TaskFileError(
      `the simulator cannot play ${input.adapter.name} (it plays ${SIMULATED_HARNESSES.join(', ')})`,
    );
  }
  const simulated = simulatedCommand(command, input.adapter.name, input.spec.simulate, input.forgeDir);
  // Made before the harness starts: a sandbox binds only a folder that exists.
  const forge = simulated.env[FORGE_DIR_ENV];
  if (forge !== undefined && isAbsolute(forge)) mkdirSync(forge, { recursive: true, mode: PRIVATE_DIR_MODE });
  return { spec: simulated, hookFiles };
}

function ended(
  started: number,
  classification: Classification,
  exitCode: number | null,
  signal: string | null,
): AttemptResult {
  const now = Date.now();
  return {
    ...classification,
    exitCode,
    signal,
    startedAt: new Date(started).toISOString(),
    endedAt: new Date(now).toISOString(),
    durationMs: now - started,
  };
}
