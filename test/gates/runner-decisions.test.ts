/**
 * Every decision of the gate runner is in events.jsonl: each `PreToolUse` it answers yields exactly
 * one decision record, last — `gate.denied` for a deny, `gate.allowed` for an allow, with the gates
 * that ran (built-in order, disabled ones absent, then the custom gates by name) and the notes of what
 * they could not check. `gate.failed` comes in addition; `PostToolUse` and `Stop` are no decisions.
 * Every record is read back through the event schema (`GateAttempt.records`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GatesConfig } from '../../src/core/gates-config.js';
import type { EventRecord } from '../../src/events/schema.js';
import { runGate } from '../../src/gates/runner.js';
import { gateAttemptPerTest, postBash, preBash } from './attempt.js';

const open = gateAttemptPerTest();

const BUILT_IN = ['nothing-twice', 'commands', 'workspace'];
const DECISIONS = new Set(['gate.allowed', 'gate.denied']);

type CustomGate = NonNullable<GatesConfig['custom']>[number];

/** A task's custom gate `name` that runs the shell command `script`. */
const customGate = (name: string, script: string, extra: Partial<CustomGate> = {}): CustomGate => ({
  name,
  command: script,
  ...extra,
});

/** The records of the one call `toolId`, and its decision records among them. */
function ofCall(records: readonly EventRecord[], toolId: string) {
  const mine = records.filter((record) => 'toolId' in record.data && record.data.toolId === toolId);
  return { all: mine, decisions: mine.filter((record) => DECISIONS.has(record.type)) };
}

describe('runGate: one decision record per PreToolUse', () => {
  it('gives every PreToolUse exactly one of gate.allowed or gate.denied, last among its records', async () => {
    const section: GatesConfig = {
      custom: [
        customGate('no-deploy', `grep -q 'make deploy' && { echo 'staging only' >&2; exit 2; } || exit 0`),
        customGate('flaky', `grep -q 'flaky' && exit 1 || exit 0`),
        customGate('strict', `grep -q 'strict' && exit 1 || exit 0`, { failClosed: true }),
      ],
    };
    const at = open({ section });
    const calls: [id: string, command: string, decision: string][] = [
      ['t-allowed', 'npm test', 'gate.allowed'],
      ['t-builtin', 'git push --force origin HEAD:main', 'gate.denied'],
      ['t-custom', 'make deploy', 'gate.denied'],
      ['t-flaky', 'echo flaky', 'gate.allowed'],
      ['t-strict', 'echo strict', 'gate.denied'],
    ];
    for (const [id, command] of calls) {
      await runGate({ event: 'PreToolUse', stdin: preBash(command, at.worktree, id), env: at.env, args: at.args });
    }
    const records = at.records();
    for (const [id, , decision] of calls) {
      const { all, decisions } = ofCall(records, id);
      expect(
        decisions.map((record) => record.type),
        id,
      ).toStrictEqual([decision]);
      expect(all.at(-1), id).toBe(decisions[0]);
    }
    expect(ofCall(records, 't-builtin').decisions[0]?.data).toMatchObject({ gate: 'commands' });
    expect(ofCall(records, 't-custom').decisions[0]?.data).toMatchObject({
      gate: 'no-deploy',
      message: 'staging only',
    });
    expect(ofCall(records, 't-flaky').all.map((record) => record.type)).toStrictEqual(['gate.failed', 'gate.allowed']);
    expect(ofCall(records, 't-strict').all).toMatchObject([
      { type: 'gate.failed', data: { gate: 'strict', decision: 'deny' } },
      { type: 'gate.denied', data: { gate: 'strict' } },
    ]);
    expect(records.every((record) => record.source === 'gate' && record.harness === 'claude-code')).toBe(true);
  });

  it('lists the gates that ran: built-in ones in order, disabled ones absent, then the custom gates by name', async () => {
    const at = open({
      section: {
        nothingTwice: false,
        workspace: false,
        custom: [
          customGate('first', 'exit 0'),
          customGate('after-only', 'exit 0', { events: ['PostToolUse'] }),
          customGate('second', `echo '{"decision":"allow"}'`),
        ],
      },
    });
    await runGate({ event: 'PreToolUse', stdin: preBash('npm test', at.worktree, 't-1'), env: at.env, args: at.args });
    expect(at.records()).toMatchObject([
      { type: 'gate.allowed', data: { tool: 'Bash', toolId: 't-1', gates: ['commands', 'first', 'second'] } },
    ]);
  });

  it('with every gate off, still records the allow, with no gates', async () => {
    const at = open({ section: { nothingTwice: false, workspace: false, commands: false } });
    await runGate({ event: 'PreToolUse', stdin: preBash('rm -rf /', at.worktree, 't-1'), env: at.env, args: at.args });
    expect(at.records().map((record) => record.data)).toStrictEqual([{ tool: 'Bash', toolId: 't-1', gates: [] }]);
  });

  it('carries what the gates could not check as notes, prefixed with each gate’s name', async () => {
    const at = open();
    await runGate({
      event: 'PreToolUse',
      stdin: preBash('rm -rf "$OUT"', at.worktree, 't-1'),
      env: at.env,
      args: at.args,
    });
    expect(at.records().map((record) => [record.type, record.data])).toStrictEqual([
      [
        'gate.allowed',
        {
          tool: 'Bash',
          toolId: 't-1',
          gates: BUILT_IN,
          notes: [
            'commands: could not tell what `rm -rf "$OUT"` deletes ("$OUT")',
            'workspace: could not tell where "$OUT" is, in `rm -rf "$OUT"`',
          ],
        },
      ],
    ]);
  });

  it('carries the forge’s failure to answer (nothing-twice) in the same record', async () => {
    // The worktree is no git repository: `gh pr list` fails there, whether or not gh is installed.
    const at = open();
    await runGate({
      event: 'PreToolUse',
      stdin: preBash('gh pr create --fill', at.worktree, 't-1'),
      env: at.env,
      args: at.args,
    });
    const records = at.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ type: 'gate.allowed', data: { gates: BUILT_IN } });
    const notes = records[0]?.type === 'gate.allowed' ? records[0].data.notes : undefined;
    expect(notes).toStrictEqual([expect.stringMatching(/^nothing-twice: could not ask the forge: gh pr list/)]);
  });

  it('writes the allow compactly: one line, no notes key when there is nothing to note', async () => {
    const at = open();
    await runGate({ event: 'PreToolUse', stdin: preBash('npm test', at.worktree, 't-1'), env: at.env, args: at.args });
    const lines = readFileSync(at.eventsPath, 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const line = JSON.parse(lines[0] ?? '') as { data: unknown };
    expect(line.data).toStrictEqual({ tool: 'Bash', toolId: 't-1', gates: BUILT_IN });
  });

  it('records the allow for another harness’s dialect too (Codex)', async () => {
    const at = open({ harness: 'codex' });
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: JSON.stringify({
        session_id: 's1',
        cwd: at.worktree,
        hook_event_name: 'PreToolUse',
        model: 'gpt-5-codex',
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        tool_use_id: 'call_1',
      }),
      env: at.env,
      args: at.args,
    });
    expect(reply.exitCode).toBe(0);
    expect(at.records()).toMatchObject([
      { harness: 'codex', type: 'gate.allowed', data: { tool: 'Bash', toolId: 'call_1', gates: BUILT_IN } },
    ]);
  });

  it('hook input it cannot read names no call: gate.failed is its only record', async () => {
    const at = open();
    await runGate({ event: 'PreToolUse', stdin: 'not json', env: at.env, args: at.args });
    expect(at.records().map((record) => record.type)).toStrictEqual(['gate.failed']);
  });
});

describe('runGate: no decision record after a call or at a stop', () => {
  it('records only operations on PostToolUse, and nothing on Stop', async () => {
    const at = open({ section: { custom: [customGate('after', 'exit 0', { events: ['PostToolUse', 'Stop'] })] } });
    await runGate({ event: 'PostToolUse', stdin: postBash('npm test', 'ok', at.worktree), env: at.env, args: at.args });
    await runGate({
      event: 'Stop',
      stdin: JSON.stringify({ session_id: 's1', cwd: at.worktree, hook_event_name: 'Stop', stop_hook_active: false }),
      env: at.env,
      args: at.args,
    });
    const types = at.records().map((record) => record.type);
    expect(types.filter((type) => type.startsWith('gate.'))).toStrictEqual([]);
  });
});
