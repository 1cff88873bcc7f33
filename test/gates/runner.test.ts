import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/gates/runner.js';
import { BRANCH, EXECUTION, gateAttemptPerTest, postBash, preBash } from './attempt.js';

const open = gateAttemptPerTest();

const denyReason = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput
    .permissionDecisionReason;

describe('runGate: built-in gates', () => {
  it('allows an ordinary call with an empty answer and records gate.allowed with the gates that ran', async () => {
    const at = open();
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: preBash('npm test', at.worktree),
      env: at.env,
      args: at.args,
    });
    expect(reply).toStrictEqual({ stdout: '', exitCode: 0 });
    expect(at.records()).toMatchObject([
      {
        execution: EXECUTION,
        attempt: 1,
        harness: 'claude-code',
        source: 'gate',
        type: 'gate.allowed',
        data: { tool: 'Bash', toolId: 'toolu_pre', gates: ['nothing-twice', 'commands', 'workspace'] },
      },
    ]);
  });

  it('denies a force-push to the base branch in Claude Code’s protocol and records gate.denied from the gate', async () => {
    const at = open();
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: preBash('git push --force origin HEAD:main', at.worktree, 'toolu_force'),
      env: at.env,
      args: at.args,
    });
    expect(reply.exitCode).toBe(0);
    expect(denyReason(reply.stdout)).toMatch(/^HarmFlow's commands gate refused/);
    const [record, ...rest] = at.records();
    expect(rest).toStrictEqual([]);
    expect(record).toMatchObject({
      execution: EXECUTION,
      attempt: 1,
      harness: 'claude-code',
      source: 'gate',
      type: 'gate.denied',
      data: { gate: 'commands', tool: 'Bash', toolId: 'toolu_force', message: denyReason(reply.stdout) },
    });
  });

  it('records a commit from PostToolUse as an operation, and a later attempt’s push is remembered for "nothing twice"', async () => {
    const at = open();
    await runGate({
      event: 'PostToolUse',
      stdin: postBash('git commit -m "Fix dates"', `[${BRANCH} 1a2b3c4] Fix dates\n 1 file changed`, at.worktree),
      env: at.env,
      args: at.args,
    });
    await runGate({
      event: 'PostToolUse',
      stdin: postBash('git push -u origin HEAD', '', at.worktree),
      env: at.env,
      args: at.args,
    });
    const operations = at.records().filter((record) => record.type === 'operation');
    expect(operations.map((record) => record.data)).toMatchObject([
      { kind: 'commit', ok: true, sha: '1a2b3c4', subject: 'Fix dates' },
      { kind: 'push', ok: true, remote: 'origin' },
    ]);
    expect(operations.every((record) => record.source === 'gate')).toBe(true);

    const force = await runGate({
      event: 'PreToolUse',
      stdin: preBash('git push --force', at.worktree),
      env: at.env,
      args: at.args,
    });
    expect(denyReason(force.stdout)).toMatch(
      /nothing-twice gate refused `git push --force`: .* was already pushed to origin, by attempt 1 \(claude-code\)/,
    );
  });

  it('refuses a second pull request after a switch, naming the first from context.json', async () => {
    const url = 'https://forge.example/acme/app/pull/7';
    const at = open({
      attempt: 2,
      harness: 'claude-code',
      earlier: [
        {
          number: 1,
          harness: 'codex',
          outcome: 'quota_exhausted',
          startedAt: '2026-12-01T10:00:00.000Z',
          endedAt: '2026-12-01T10:05:00.000Z',
          workItems: [
            {
              text: 'Open a pull request',
              reported: { status: 'completed', by: 'codex plan' },
              pullRequest: { url, number: 7 },
            },
          ],
        },
      ],
    });
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: preBash('gh pr create --title "Fix dates" --body ""', at.worktree),
      env: at.env,
      args: at.args,
    });
    expect(denyReason(reply.stdout)).toContain(`already has a pull request, ${url} (#7), by attempt 1 (codex)`);
    expect(at.records().map((record) => record.type)).toContain('gate.denied');
  });
});

describe('runGate: custom gates', () => {
  const gate = (command: string, extra: Record<string, unknown> = {}) => ({
    section: { custom: [{ name: 'mine', command, ...extra }] },
  });

  it('reads the harness-neutral JSON on stdin and denies with {"decision":"deny"}', async () => {
    const at = open(
      gate(
        `node -e 'let t="";process.stdin.on("data",d=>t+=d).on("end",()=>{const j=JSON.parse(t);process.stdout.write(JSON.stringify(j.call.kind==="shell"&&j.harness==="claude-code"?{decision:"deny",message:"no "+j.call.command}:{decision:"allow"}))})'`,
      ),
    );
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: preBash('make deploy', at.worktree),
      env: at.env,
      args: at.args,
    });
    expect(denyReason(reply.stdout)).toBe('no make deploy');
    expect(at.records()).toMatchObject([{ type: 'gate.denied', data: { gate: 'mine', message: 'no make deploy' } }]);
  });

  it('denies on exit 2 with stderr as the message (Claude Code’s convention)', async () => {
    const at = open(gate(`echo 'staging only' >&2; exit 2`));
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: preBash('make deploy', at.worktree),
      env: at.env,
      args: at.args,
    });
    expect(denyReason(reply.stdout)).toBe('staging only');
  });

  it('a crashing gate is recorded and the call allowed; failing closed, the call is denied', async () => {
    const open1 = open(gate('echo boom >&2; exit 1'));
    const allowed = await runGate({
      event: 'PreToolUse',
      stdin: preBash('ls', open1.worktree),
      env: open1.env,
      args: open1.args,
    });
    expect(allowed).toStrictEqual({ stdout: '', exitCode: 0 });
    expect(open1.records()).toMatchObject([
      {
        type: 'gate.failed',
        data: { gate: 'mine', event: 'PreToolUse', error: 'exited with code 1: boom', decision: 'allow' },
      },
      { type: 'gate.allowed', data: { gates: ['nothing-twice', 'commands', 'workspace', 'mine'] } },
    ]);
    open1.cleanup();

    const closed = open(gate('exit 1', { failClosed: true }));
    const denied = await runGate({
      event: 'PreToolUse',
      stdin: preBash('ls', closed.worktree),
      env: closed.env,
      args: closed.args,
    });
    expect(denyReason(denied.stdout)).toMatch(/mine gate failed \(exited with code 1\) and is set to fail closed/);
    expect(closed.records()).toMatchObject([
      { type: 'gate.failed', data: { decision: 'deny' } },
      { type: 'gate.denied', data: { gate: 'mine', tool: 'Bash', message: denyReason(denied.stdout) } },
    ]);
  });

  it('a gate that hangs is killed at its timeout, recorded, and the call allowed without waiting for it', async () => {
    const at = open(gate('sleep 30', { timeoutMs: 300 }));
    const started = Date.now();
    const reply = await runGate({ event: 'PreToolUse', stdin: preBash('ls', at.worktree), env: at.env, args: at.args });
    expect(reply).toStrictEqual({ stdout: '', exitCode: 0 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(at.records()).toMatchObject([
      { type: 'gate.failed', data: { error: 'timed out after 300 ms' } },
      { type: 'gate.allowed', data: { gates: ['nothing-twice', 'commands', 'workspace', 'mine'] } },
    ]);
  });

  it('nonsense on stdout is a failure, not an allow', async () => {
    const at = open(gate(`echo '{"decision":"maybe"}'`));
    await runGate({ event: 'PreToolUse', stdin: preBash('ls', at.worktree), env: at.env, args: at.args });
    expect(at.records()).toMatchObject([
      { type: 'gate.failed', data: { error: expect.stringMatching(/^answered/) } },
      { type: 'gate.allowed' },
    ]);
  });
});

describe('runGate: its own failures', () => {
  it('input it cannot read is recorded and allowed, or denied when the gates fail closed', async () => {
    const at = open();
    expect(await runGate({ event: 'PreToolUse', stdin: 'not json', env: at.env, args: at.args })).toStrictEqual({
      stdout: '',
      exitCode: 0,
    });
    expect(at.records()).toMatchObject([
      { source: 'gate', type: 'gate.failed', data: { gate: 'runner', decision: 'allow' } },
    ]);
    at.cleanup();

    const closed = open({ section: { failClosed: true } });
    const reply = await runGate({ event: 'PreToolUse', stdin: '{}', env: closed.env, args: closed.args });
    expect(denyReason(reply.stdout)).toMatch(/gate runner failed .* fail closed/);
  });
});
