/**
 * The session service with the REAL harness CLIs (the verified versions) pointed at the loopback
 * model-API simulator: a submitted task runs, then a follow-up message reopens the execution and
 * resumes the CLI's own session (Claude Code `--resume`, Codex `exec resume`, Gemini `--resume`,
 * OpenCode `--session`) — the model API sees the follow-up arrive in the same conversation — and a
 * second follow-up reopens it again, in the session the first one resumed (its private home is the
 * first attempt's).
 * Runs when HARMFLOW_HARNESS_BIN_DIRS lists the CLIs (real-harnesses.ts says how).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HarnessName } from '../../src/core/outcome.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import type { ReplySpec } from '../../src/simulators/model-api/script.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { GIT_IDENTITY } from '../execution/fixture.js';
import { sandboxedFlags } from '../execution/sandbox-fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';
import { REAL_PATH, realHarnessesAvailable, SANDBOXED } from './real-harnesses.js';

const HARNESSES = ['claude-code', 'codex', 'gemini', 'opencode'] as const satisfies readonly HarnessName[];
const enabled = realHarnessesAvailable(HARNESSES);

/** Catalogued models, so each CLI offers its full tool set (as in real-harnesses.test.ts). */
const MODEL: Partial<Record<HarnessName, string>> = { codex: 'gpt-5.5', gemini: 'gemini-2.5-pro' };

/** Per test: three turns of a real CLI; OpenCode alone takes up to ~13 s to start on a loaded machine. */
const TEST_TIMEOUT_MS = 180_000;

const scripts: Record<string, ReplySpec[]> = {};
for (const harness of HARNESSES) {
  scripts[`${harness}-service`] = [
    { write: { path: 'served.txt', content: `written by ${harness}\n` } },
    'Done: wrote served.txt.',
    'Follow-up: served.txt is still there.',
    'Second follow-up: still there.',
  ];
}

let api: ModelApi;
let bench: ServiceBench | undefined;
beforeAll(async () => {
  if (enabled) api = await startModelApi({ scripts });
});
afterAll(async () => {
  await api?.close();
});
afterEach(async () => {
  await bench?.cleanup();
  bench = undefined;
});

describe.skipIf(!enabled).each(HARNESSES)('the service with the real %s CLI', (harness) => {
  it('runs a task, then each of two follow-ups resumes the CLI session', { timeout: TEST_TIMEOUT_MS }, async () => {
    const service = makeServiceBench({ hostEnv: { ...process.env, ...GIT_IDENTITY, PATH: REAL_PATH } });
    bench = service;
    const script = `${harness}-service`;
    const connection = connectHarness(harness, { url: api.url, script });
    const model = MODEL[harness];
    const task = service.task({
      harness: {
        harness,
        ...(model !== undefined && { model }),
        env: connection.env,
        args: connection.args,
        passEnv: Object.keys(GIT_IDENTITY),
      },
      timeout: '3m',
    });
    const execution = await service.registry.submit(task);
    await service.registry.settled();
    expect((await service.store.getExecution(execution.id))?.state).toBe('succeeded');
    expect(readFileSync(join(execution.worktree, 'served.txt'), 'utf8')).toBe(`written by ${harness}\n`);

    expect(await service.registry.send(execution.id, 'Is served.txt still there?')).toEqual({ turn: 't2', queued: 1 });
    await service.registry.settled();
    expect((await service.store.getExecution(execution.id))?.state).toBe('succeeded');

    const records = service.events(execution.id);
    const session = records.find((record) => record.type === 'session.started');
    const sessionId = session?.type === 'session.started' ? session.data.sessionId : undefined;
    expect(sessionId).toBeDefined();
    const second = records.find((record) => record.type === 'turn.started' && record.data.turn === 't2');
    expect(second?.type === 'turn.started' && second.data.resumedSession).toBe(sessionId);
    const replies = records.flatMap((record) =>
      record.type === 'message' && record.attempt === 2 ? [record.data.text] : [],
    );
    expect(replies.join(' ')).toContain('Follow-up: served.txt is still there.');
    const requests = api.requests.filter((request) => request.script === script);
    expect(requests.at(-1)?.lastUserText).toContain('Is served.txt still there?');

    // A second reopen resumes the session the first one went on in.
    expect(await service.registry.send(execution.id, 'And now?')).toEqual({ turn: 't3', queued: 1 });
    await service.registry.settled();
    expect((await service.store.getExecution(execution.id))?.state).toBe('succeeded');
    const all = service.events(execution.id);
    // Each of the three attempts ran in the OS sandbox, the resumed ones in the first one's home.
    expect(sandboxedFlags(all)).toEqual([SANDBOXED, SANDBOXED, SANDBOXED]);
    const ended = all.filter((record) => record.type === 'attempt.ended');
    expect(ended.map((record) => record.type === 'attempt.ended' && record.data.outcome)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    const secondSession = ended[1]?.type === 'attempt.ended' ? ended[1].data.sessionId : undefined;
    expect(secondSession).toBeDefined();
    const third = all.find((record) => record.type === 'turn.started' && record.data.turn === 't3');
    expect(third?.type === 'turn.started' && third.data.resumedSession).toBe(secondSession);
    const thirdReplies = all.flatMap((record) =>
      record.type === 'message' && record.attempt === 3 ? [record.data.text] : [],
    );
    expect(thirdReplies.join(' ')).toContain('Second follow-up: still there.');
    const thirdRequests = api.requests.filter((request) => request.script === script);
    expect(thirdRequests.at(-1)?.lastUserText).toContain('And now?');
  });
});
