/**
 * Session routing on a real state directory: an execution run by the simulator on claude-code, out
 * of quota, switched to codex, then reopened by two follow-ups. `harmflow show --json` (the built
 * bin), `harmflow show` and the API's execution detail (parsed by the CLI client's schema) map it to
 * the same harness sessions, and each time they say which session the next follow-up resumes, the
 * engine resumes exactly that one. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ExecutionWithAttempts } from '../../src/cli/client-schemas.js';
import { EXIT } from '../../src/core/errors.js';
import type { SessionRouting } from '../../src/execution/session-routing.js';
import { GIT_IDENTITY, simulated } from '../execution/fixture.js';
import { request, serviceBenchApp } from '../server/fixture.js';
import { makeServiceBench, type ServiceBench } from '../service/bench.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

let bench: ServiceBench;
afterEach(async () => {
  await bench?.cleanup();
});

function show(id: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, 'show', id, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HARMFLOW_HOME: bench.home.root, ...GIT_IDENTITY },
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('session routing of an execution switched and reopened', () => {
  it('is the same in show --json, show and the API, and is what the engine does', { timeout: 60_000 }, async () => {
    bench = makeServiceBench();
    const claude = bench.scenario('claude', { steps: [{ say: 'Starting.' }, { end: 'quota' }] });
    const codex = bench.scenario('codex', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const task = bench.task({ harness: simulated('claude-code', claude), fallbacks: [simulated('codex', codex)] });
    const { id } = await bench.registry.submit(task);
    await bench.registry.settled();
    const app = serviceBenchApp(bench);
    const apiRouting = async (): Promise<SessionRouting | undefined> => {
      const response = await request(app, `/api/executions/${id}`);
      expect(response.status).toBe(200);
      return ExecutionWithAttempts.parse(await response.json()).routing;
    };

    const resumed: string[] = [];
    for (const text of ['second', 'third']) {
      const before = await apiRouting();
      if (before?.nextFollowUp.kind !== 'resume') throw new Error(`no session to resume: ${JSON.stringify(before)}`);
      resumed.push(before.nextFollowUp.sessionId);
      await bench.registry.send(id, text);
      await bench.registry.settled();
    }
    // What the engine resumed on each reopen is what the routing said it would.
    const reopened = bench
      .events(id)
      .flatMap((record) => (record.type === 'execution.reopened' ? [record.data.resumedSession] : []));
    expect(reopened).toEqual(resumed);

    const records = bench.events(id);
    const reported = (attempt: number) =>
      records.find((record) => record.type === 'session.started' && record.attempt === attempt)?.data as
        | { sessionId: string }
        | undefined;
    const claudeSession = reported(1)?.sessionId;
    const codexSession = reported(2)?.sessionId;
    expect(claudeSession).toBeDefined();
    expect(codexSession).toBeDefined();
    expect(resumed).toEqual([codexSession, codexSession]);

    const json = show(id, '--json');
    expect(json.code).toBe(EXIT.ok);
    const shown = JSON.parse(json.stdout) as { routing: SessionRouting };
    expect(shown.routing).toEqual({
      execution: id,
      sessions: [
        // t1 went on in codex after claude-code ran out; each follow-up reopened the codex session.
        { harness: 'claude-code', sessionId: claudeSession, attempts: [1], turns: ['t1'] },
        { harness: 'codex', sessionId: codexSession, attempts: [2, 3, 4], turns: ['t1', 't2', 't3'] },
      ],
      nextFollowUp: { kind: 'resume', harness: 'codex', sessionId: codexSession, attempt: 4 },
    });
    expect(await apiRouting()).toEqual(shown.routing);

    const text = show(id.slice(0, 10));
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).toContain(`session   claude-code session ${claudeSession} — attempt 1; turn t1\n`);
    expect(text.stdout).toContain(
      `session   codex session ${codexSession} — attempt 2, resumed by attempts 3 and 4; turns t1, t2 and t3\n`,
    );
    expect(text.stdout).toContain(`follow-up resumes codex session ${codexSession} (attempt 4's)\n`);
  });

  it('says a follow-up is refused once the execution failed', { timeout: 30_000 }, async () => {
    bench = makeServiceBench();
    const failing = bench.scenario('failing', { steps: [{ end: 'overloaded' }] });
    const { id } = await bench.registry.submit(bench.task({ harness: simulated('claude-code', failing) }));
    await bench.registry.settled();
    const shown = JSON.parse(show(id, '--json').stdout) as { routing: SessionRouting };
    expect(shown.routing.nextFollowUp).toEqual({
      kind: 'refused',
      reason: 'the execution ended failed: it takes no more messages',
    });
    await expect(bench.registry.send(id, 'one more')).rejects.toThrow(/has ended \(failed\)/);
  });
});
