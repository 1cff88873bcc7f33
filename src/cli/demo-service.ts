/**
 * `harmflow demo`, act 2: the session service survives a crash. The real service (`harmflow serve`)
 * runs as a child process on the demo's state directory. A task played by the simulator (as
 * claude-code) is submitted and a follow-up message is acknowledged as turn t2; while turn t1 runs,
 * the service is killed with SIGKILL and started again. It must reopen the execution, deliver t1
 * again (marked redelivered) and t2 once, and not redo what t1 had done. The verdict is checked from
 * the execution's records and its worktree, never assumed.
 *
 * Ownership and bounds: the act owns each service child it starts; every way out of
 * `runServiceAct` kills what is still running (try/finally), and every wait has a timeout. The
 * harness a killed service leaves running is killed by the restarted service's recovery; without a
 * restart it exits by itself at its next output line (its stdout pipe is closed; measured: within a
 * second).
 */
import { randomBytes } from 'node:crypto';
import { delimiter } from 'node:path';
import { describeError, EXIT, HarmflowError, ServiceUnavailableError } from '../core/errors.js';
import { HARMFLOW_BIN } from '../core/harmflow-bin.js';
import { harmflowHome } from '../core/home.js';
import { FINAL_STATES } from '../core/outcome.js';
import { followEvents, readEvents } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';
import { inheritedEnv, runCommand } from '../proc/run.js';
import { type RunningProcess, spawnProcess } from '../proc/spawn.js';
import { FORGE_BIN_DIR } from '../simulators/launch.js';
import type { ExecutionRecord } from '../store/store.js';
import { createClient, type ServiceClient } from './client.js';
import { type DemoLayout, demoEnv } from './demo-setup.js';
import { taskForService } from './submit.js';
import { terminalOutput } from './terminal-output.js';
import { timelineLines } from './timeline-output.js';

/** What an act's check found: `ok` only when every claim of `text` holds; else `text` says what failed. */
export interface Verdict {
  readonly ok: boolean;
  readonly text: string;
}

type Print = (text?: string) => void;

/** The CLI this package runs as: the service is started through it, as a user would start it. */

/** The follow-up message, sent right after the task; the simulator's script writes and commits the CHANGELOG entry for it. */
/** The commits act 2's turns make (examples/demo/service.scenario.yaml), each exactly once. */
const EXPECTED_COMMITS = ['Add formatDate, the inverse of parseDate', 'Add a CHANGELOG entry for formatDate'];

export const FOLLOW_UP = 'Also add a CHANGELOG entry for formatDate.';

/**
 * 24 random bytes (192 bits) for the act's API token: beyond guessing for the few seconds the
 * service listens; base64url keeps it one word, as the service requires.
 */
const TOKEN_BYTES = 24;

/**
 * 20 s for the service to print its address: it starts in about 0.3 s here (node, the SQLite
 * store, the listen); the margin covers a cold disk on a slow machine without hanging the demo.
 */
const START_MS = 20_000;

/** 20 s for turn t1's first message: the script says it about 1.5 s after the submit. */
const FIRST_MESSAGE_MS = 20_000;

/** 60 s for the execution to end after the restart: its two turns take about 7 s together. */
const FINISH_MS = 60_000;

/** 10 s for a stopping service to exit: its close budget (3 s below) plus the store's close. */
const STOP_MS = 10_000;

/** 250 ms between looks at the execution's state: a few dozen requests over its seven seconds. */
const POLL_MS = 250;

/** 50 ms between looks at the events file while waiting for t1's message: the kill lands mid-turn. */
const FOLLOW_POLL_MS = 50;

/**
 * `serve`'s options: no disk floor (a demo must run on a nearly full disk too), room for the
 * execution whatever the load, and short budgets so a stop never makes the demo wait long.
 */
const SERVE_OPTIONS = [
  '--disk-floor-gib',
  '0',
  '--max-running',
  '2',
  '--close-budget',
  '3s',
  '--interrupt-budget',
  '2s',
] as const;

/** Runs act 2 and prints it; never throws: what went wrong is the failed verdict's text. */
export async function runServiceAct(layout: DemoLayout, print: Print): Promise<Verdict> {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const env = {
    ...inheritedEnv(),
    ...demoEnv(layout),
    // The service's harnesses get its PATH: the fake forge first, as act 1 runs them.
    PATH: [FORGE_BIN_DIR, process.env.PATH ?? '/usr/bin:/bin'].join(delimiter),
    HARMFLOW_TOKEN: token,
  };
  const home = harmflowHome(layout.home);
  const started: DemoService[] = [];
  const start = async (): Promise<DemoService> => {
    const service = startService(layout, env, print);
    started.push(service);
    await service.listening;
    return service;
  };
  try {
    print(`service     harmflow serve --port 0 --home ${layout.home} ${SERVE_OPTIONS.join(' ')}`);
    const first = await start();
    let client = first.client(token);
    const submitted = await client.submit(taskForService(layout.serviceTaskFile));
    const id = submitted.id;
    print(`submitted   ${id} (${submitted.state})`);
    const turn = await client.send(id, FOLLOW_UP);
    print(`follow-up   "${FOLLOW_UP}" acknowledged as turn ${turn.id} (${turn.queued} turns waiting)`);

    const said = await firstRecord(home.eventsFile(id), (record) => record.type === 'message', FIRST_MESSAGE_MS);
    if (said === undefined) {
      throw new HarmflowError(`turn t1 said nothing within ${FIRST_MESSAGE_MS / 1000} s`, EXIT.executionFailed);
    }
    print(`kill -9     the service (pid ${first.pid}) in the middle of turn t1`);
    await first.kill();

    const second = await start();
    await second.printed(new RegExp(`^reopened \\d+ execution\\(s\\) left open: .*${id}`), 'reopen the execution');
    client = second.client(token);
    print(`waiting     for execution ${id} to end (at most ${FINISH_MS / 1000} s)`);
    const ended = await finalState(client, id);
    print();
    const records = readEvents(home.eventsFile(id));
    const timeline = timelineLines(terminalOutput(process.stdout, process.env));
    for (const record of records) {
      const line = timeline(record);
      if (line !== undefined) print(line);
    }
    print();
    await client.stop();
    await within(second.exited, STOP_MS, `the service did not exit within ${STOP_MS / 1000} s of POST /api/stop`);

    print(`look again  HARMFLOW_HOME=${layout.home} npx harmflow events ${id}`);
    return await checkServiceVerdict(ended, records, second.output());
  } catch (error) {
    return { ok: false, text: `act 2 could not finish: ${describeError(error)}` };
  } finally {
    await Promise.all(started.map((service) => service.kill()));
  }
}

/**
 * Checks act 2's claims: the execution succeeded, the restarted service reopened it, t1 was delivered
 * twice (first, then marked redelivered, exactly once), t2 once (first), each completed once, the
 * files t1 wrote were written once (its redelivery found them done), and the tests pass.
 */
export async function checkServiceVerdict(
  execution: ExecutionRecord,
  records: readonly EventRecord[],
  serviceOutput: string,
): Promise<Verdict> {
  const problems = [...checkServiceRecords(records)];
  if (execution.state !== 'succeeded') problems.unshift(`the execution ended ${execution.state}`);
  if (!serviceOutput.includes(`reopened 1 execution(s) left open: ${execution.id}`)) {
    problems.push('the restarted service did not say it reopened the execution');
  }
  const log = await runCommand('git', ['log', '--format=%s', `${execution.baseSha}..HEAD`], {
    cwd: execution.worktree,
    timeoutMs: 10_000,
  });
  const subjects = log.stdout.trim().split('\n').filter(Boolean);
  for (const subject of EXPECTED_COMMITS) {
    const count = subjects.filter((made) => made === subject).length;
    if (count !== 1) problems.push(`commit "${subject}" made ${count} times`);
  }
  const tests = await runCommand(process.execPath, ['--test'], { cwd: execution.worktree, timeoutMs: 60_000 });
  if (tests.exitCode !== 0) problems.push('the tests fail in the worktree');
  const pass = /# pass (\d+)/.exec(tests.stdout)?.[1];
  if (problems.length > 0) return { ok: false, text: problems.join('; ') };
  const written = t1Writes(records).size;
  return {
    ok: true,
    text:
      `the service was killed (SIGKILL) in the middle of turn t1 and started again; it reopened ${execution.id}, ` +
      `delivered t1 again once (marked redelivered) and the follow-up t2 once; t1's ${written} files were ` +
      `written once (the redelivery found them done); ${EXPECTED_COMMITS.length} commits each made once ` +
      `(t1's work, then t2's CHANGELOG entry); succeeded, tests pass (${pass ?? '?'} passed).`,
  };
}

/** The problems act 2's records show (none when every delivery claim holds). Pure. */
export function checkServiceRecords(records: readonly EventRecord[]): string[] {
  const problems: string[] = [];
  const of = <T extends EventRecord['type']>(type: T) =>
    records.filter((record): record is Extract<EventRecord, { type: T }> => record.type === type);
  const deliveries = (turn: string) =>
    of('turn.started')
      .filter((record) => record.data.turn === turn)
      .map((record) => record.data.delivery);
  const completed = (turn: string) =>
    of('turn.ended').filter((record) => record.data.turn === turn && record.data.outcome === 'completed').length;

  const ended = of('execution.ended').map((record) => record.data.state);
  if (ended.join() !== 'succeeded') problems.push(`execution.ended: ${ended.join(', ') || 'none'}`);
  if (of('execution.resumed').length !== 1) problems.push(`${of('execution.resumed').length} restarts recorded, not 1`);
  const queued = of('message.queued').map((record) => record.data.turn);
  if (queued.join() !== 't2') problems.push(`messages queued: ${queued.join(', ') || 'none'} (expected t2)`);
  const t1 = deliveries('t1');
  if (t1.join() !== 'first,redelivered') problems.push(`t1 delivered as: ${t1.join(', ') || 'never'}`);
  const marked = of('turn.redelivered').map((record) => record.data.turn);
  if (marked.join() !== 't1') problems.push(`turns marked redelivered: ${marked.join(', ') || 'none'} (expected t1)`);
  const t2 = deliveries('t2');
  if (t2.join() !== 'first') problems.push(`t2 delivered as: ${t2.join(', ') || 'never'}`);
  for (const turn of ['t1', 't2']) {
    if (completed(turn) !== 1) problems.push(`${turn} completed ${completed(turn)} times`);
  }
  const writes = t1Writes(records);
  if (writes.size === 0) problems.push('turn t1 wrote no file');
  for (const [file, count] of writes) if (count > 1) problems.push(`${file} written ${count} times in turn t1`);
  return problems;
}

/** How many times each file was changed while turn t1 ran (in all its deliveries): records before t2 starts. */
function t1Writes(records: readonly EventRecord[]): Map<string, number> {
  const t2 = records.findIndex((record) => record.type === 'turn.started' && record.data.turn === 't2');
  const counts = new Map<string, number>();
  for (const record of t2 === -1 ? records : records.slice(0, t2)) {
    if (record.type !== 'operation' || record.data.kind !== 'file_change') continue;
    for (const file of record.data.files) counts.set(file, (counts.get(file) ?? 0) + 1);
  }
  return counts;
}

/** One `harmflow serve` child: its address once it listens, its output, and the ways to end it. */
interface DemoService {
  readonly pid: number | undefined;
  /** Resolves once it printed its address; rejects when it exits or is silent for START_MS first. */
  readonly listening: Promise<void>;
  readonly exited: Promise<unknown>;
  /** Its stdout and stderr so far, line by line. */
  output(): string;
  /** Resolves once it printed a line `pattern` matches; rejects when it exits or after START_MS. */
  printed(pattern: RegExp, what: string): Promise<void>;
  /** A client of it with the act's token (after `listening`). */
  client(token: string): ServiceClient;
  /** SIGKILL, then waits until it is gone. Idempotent; a no-op once it exited. */
  kill(): Promise<void>;
}

const ADDRESS_LINE = /^HarmFlow service on (http:\/\/\S+)/;

/** Starts `harmflow serve` on a free port over the demo's state directory; its lines are printed as they come. */
function startService(layout: DemoLayout, env: Record<string, string>, print: Print): DemoService {
  const lines: string[] = [];
  const waiters = new Set<{ readonly pattern: RegExp; readonly heard: () => void }>();
  const child: RunningProcess = spawnProcess({
    command: process.execPath,
    args: [HARMFLOW_BIN, 'serve', '--port', '0', '--home', layout.home, ...SERVE_OPTIONS],
    cwd: layout.root,
    env,
    onLine: (_stream, line) => {
      lines.push(line);
      print(`  service │ ${line}`);
      for (const waiter of waiters) {
        if (!waiter.pattern.test(line)) continue;
        waiters.delete(waiter);
        waiter.heard();
      }
    },
  });
  const died = child.exited.then((exit) => {
    throw new ServiceUnavailableError(
      `harmflow serve exited (${exit.error ?? exit.signal ?? `exit ${exit.exitCode}`}) before it printed what the demo waits for`,
    );
  });
  const printed = (pattern: RegExp, what: string): Promise<void> => {
    if (lines.some((line) => pattern.test(line))) return Promise.resolve();
    const heard = new Promise<void>((resolve) => waiters.add({ pattern, heard: resolve }));
    return within(Promise.race([heard, died]), START_MS, `harmflow serve did not ${what} within ${START_MS / 1000} s`);
  };
  return {
    pid: child.pid,
    listening: printed(ADDRESS_LINE, 'listen'),
    exited: child.exited,
    output: () => lines.join('\n'),
    printed,
    client: (token) => {
      const url = lines.map((line) => ADDRESS_LINE.exec(line)?.[1]).find((found) => found !== undefined);
      if (url === undefined) throw new ServiceUnavailableError('harmflow serve is not listening');
      return createClient({ url, token: { token, from: 'the demo' } });
    },
    kill: async () => {
      child.kill();
      await child.exited;
    },
  };
}

/** The first record of the log at `path` that `wanted` accepts, or undefined after `ms`. */
async function firstRecord(
  path: string,
  wanted: (record: EventRecord) => boolean,
  ms: number,
): Promise<EventRecord | undefined> {
  for await (const record of followEvents(path, { signal: AbortSignal.timeout(ms), pollMs: FOLLOW_POLL_MS })) {
    if (wanted(record)) return record;
  }
  return undefined;
}

/** Polls the execution until its state is final; HarmflowError after FINISH_MS. */
async function finalState(client: ServiceClient, id: string): Promise<ExecutionRecord> {
  const deadline = Date.now() + FINISH_MS;
  for (;;) {
    const { execution } = await client.execution(id);
    if (FINAL_STATES.has(execution.state)) return execution;
    if (Date.now() >= deadline) {
      throw new HarmflowError(
        `execution ${id} was still ${execution.state} after ${FINISH_MS / 1000} s`,
        EXIT.executionFailed,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `promise`, or a ServiceUnavailableError saying `message` once `ms` passed first. */
async function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ServiceUnavailableError(message)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
