/**
 * Idempotent writes across a SIGKILL of `harmflow serve` (a child process): a submit or a follow-up
 * message is sent with an `Idempotency-Key`, the daemon is killed right after — before its answer
 * or after it —, restarted, and the request sent again with the same key, as `harmflow submit` and
 * `harmflow send` do. Each message is delivered exactly once (one turn, one unmarked
 * `turn.started`), each submit makes one execution, and a retry of an answered request gets the
 * same answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';
import { DAEMON_TOKEN, type Daemon, startDaemon } from './daemon.js';

const ARGS = ['--max-running', '4', '--disk-floor-gib', '0', '--interrupt-budget', '1s', '--close-budget', '3s'];
/** When each round kills the daemon: ms after the request was sent, or once it was answered. */
const KILLS: readonly (number | 'answered')[] = [0, 15, 'answered', 40, 'answered'];

/** 30 s: every request is answered in well under a second; a hang fails here, with what it was. */
const REQUEST_MS = 30_000;
/** 60 s: each execution is a three-step simulated turn of about half a second. */
const SETTLE_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let bench: Bench;
let daemon: Daemon | undefined;
beforeAll(() => {
  bench = makeBench();
});
afterAll(async () => {
  await daemon?.kill('SIGKILL');
  await bench.cleanup();
});

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** POSTs `body` to `path` of `live` with the key; the answer's status and text. */
async function post(live: Daemon, path: string, body: unknown, key: string): Promise<Answer> {
  const response = await fetch(`${live.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${DAEMON_TOKEN}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_MS),
  });
  return { status: response.status, body: await response.text() };
}

const env = { ...process.env, ...GIT_IDENTITY };

/** The daemon now, restarted after each kill. */
async function live(): Promise<Daemon> {
  daemon ??= await startDaemon(bench.home.root, ARGS, env);
  return daemon;
}

/** Sends with `key`, kills the daemon at `kill`, restarts it, sends again; returns both answers. */
async function killedAndRetried(path: string, body: unknown, key: string, kill: number | 'answered') {
  const killed = await live();
  const first = post(killed, path, body, key).catch(() => undefined);
  if (kill === 'answered') await first;
  else await sleep(kill);
  await killed.kill('SIGKILL');
  daemon = undefined;
  return { first: await first, retry: await post(await live(), path, body, key) };
}

/** Waits until no execution is live (SETTLE_MS at most: then fails naming them), then stops the daemon (SIGTERM). */
async function settle(): Promise<void> {
  const running = await live();
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const listed = await running.api('GET', '/api/executions?state=live');
    const left = (listed.body as { executions: { id: string; state: string }[] }).executions;
    if (left.length === 0) break;
    if (Date.now() > deadline) {
      const which = left.map((execution) => `${execution.id} ${execution.state}`).join(', ');
      throw new Error(
        `still live after ${SETTLE_MS / 1000} s: ${which}; the service said: ${running.output().slice(-3000)}`,
      );
    }
    await sleep(200);
  }
  await running.kill('SIGTERM');
  daemon = undefined;
}

function task(name: string) {
  const scenario = bench.scenario('turn', {
    pace: '150ms',
    steps: [{ say: 'reading' }, { say: 'editing' }, { end: 'complete' }],
  });
  return {
    name,
    repo: bench.repo,
    baseRef: 'main',
    prompt: `Task ${name}.`,
    harness: simulated('claude-code', scenario),
  };
}

describe('idempotent writes under SIGKILL of the service', () => {
  it('makes each execution once when a submit is sent again after a kill', { timeout: 120_000 }, async () => {
    for (const [round, kill] of KILLS.entries()) {
      const body = { task: task(`submit-${round}`) };
      const { first, retry } = await killedAndRetried('/api/executions', body, `s-${round}`, kill);
      expect(retry.status).toBe(201);
      if (first?.status === 201) expect(retry.body).toBe(first.body);
    }
    await settle();
    const executions = await bench.store.listExecutions();
    for (const [round] of KILLS.entries()) {
      expect(executions.filter((execution) => execution.taskName === `submit-${round}`)).toHaveLength(1);
    }
  });

  it('delivers each message once when it is sent again after a kill', { timeout: 120_000 }, async () => {
    const created = await post(await live(), '/api/executions', { task: task('messages') }, 'the-execution');
    const id = (JSON.parse(created.body) as { execution: { id: string } }).execution.id;
    let answered = 0;
    for (const [round, kill] of KILLS.entries()) {
      const path = `/api/executions/${id}/messages`;
      const { first, retry } = await killedAndRetried(path, { text: `follow-up ${round}` }, `m-${round}`, kill);
      expect(retry.status).toBe(202);
      if (first?.status === 202) {
        expect(retry.body).toBe(first.body);
        answered += 1;
      }
    }
    expect(answered).toBeGreaterThanOrEqual(2);
    await settle();

    const records = readEvents(bench.home.eventsFile(id));
    for (const [round] of KILLS.entries()) {
      const text = `follow-up ${round}`;
      const starts = records.flatMap((record) =>
        record.type === 'turn.started' && record.data.text.endsWith(text) ? [record.data] : [],
      );
      expect({ text, turns: new Set(starts.map((start) => start.turn)).size }).toEqual({ text, turns: 1 });
      expect(starts.filter((start) => start.delivery !== 'redelivered')).toHaveLength(1);
    }
  });
});
