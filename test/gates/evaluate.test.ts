import { describe, expect, it } from 'vitest';
import { GatesConfig } from '../../src/core/gates-config.js';
import { resolveSettings } from '../../src/gates/resolve.js';

/** A `gates:` section validated and normalized, as the engine and the runner have it. */
const resolveGates = (section: unknown) => resolveSettings(GatesConfig.parse(section ?? {}));

import { evaluate } from '../../src/gates/evaluate.js';
import { claudeHookDialect } from '../../src/harnesses/claude-code/hook-dialect.js';
import { preBash } from './attempt.js';
import { BRANCH, bash, facts, WORKTREE } from './fixture.js';

const ALL = resolveGates(undefined);
const PUSHED = facts({ pushes: [{ remote: 'origin', branch: BRANCH, sha: 'abc1234', attempt: 1, harness: 'codex' }] });

describe('evaluate', () => {
  it('allows an ordinary call, from hook JSON through to the verdict', () => {
    expect(
      evaluate(
        claudeHookDialect.parse('PreToolUse', preBash('npm test && git commit -am wip', WORKTREE)),
        facts(),
        ALL,
      ),
    ).toStrictEqual({
      verdict: { decision: 'allow' },
      ran: ['nothing-twice', 'commands', 'workspace'],
      operations: [],
      notes: [],
    });
  });

  it('answers with the first deny in order nothing-twice, commands, workspace', () => {
    // Forcing the execution's own pushed branch from outside the worktree: all three gates would refuse.
    const call = bash(`cd /elsewhere && git push --force origin HEAD:${BRANCH} && rm -rf /`);
    const first = evaluate({ event: 'PreToolUse', call }, PUSHED, ALL);
    expect(first.verdict.decision === 'deny' && first.verdict.message).toMatch(/^HarmFlow's nothing-twice gate/);
    expect(first).toMatchObject({ gate: 'nothing-twice', ran: ['nothing-twice'] });

    const withoutNothingTwice = evaluate({ event: 'PreToolUse', call }, PUSHED, {
      ...ALL,
      nothingTwice: false,
    });
    expect(withoutNothingTwice.verdict.decision === 'deny' && withoutNothingTwice.verdict.message).toMatch(
      /^HarmFlow's commands gate/,
    );
    expect(withoutNothingTwice).toMatchObject({ gate: 'commands', ran: ['commands'] });

    const onlyWorkspace = evaluate({ event: 'PreToolUse', call }, PUSHED, {
      ...ALL,
      nothingTwice: false,
      commands: false,
    });
    expect(onlyWorkspace.verdict.decision === 'deny' && onlyWorkspace.verdict.message).toMatch(
      /^HarmFlow's workspace gate/,
    );
    expect(onlyWorkspace).toMatchObject({ gate: 'workspace', ran: ['workspace'] });
  });

  it('says which gates ran before a call: every enabled one, in order, when all allow', () => {
    const call = bash('npm test');
    const ran = (gates: typeof ALL) => evaluate({ event: 'PreToolUse', call }, facts(), gates).ran;
    expect(ran(ALL)).toStrictEqual(['nothing-twice', 'commands', 'workspace']);
    expect(ran({ ...ALL, commands: false })).toStrictEqual(['nothing-twice', 'workspace']);
    expect(ran({ ...ALL, nothingTwice: false, workspace: false })).toStrictEqual(['commands']);
  });

  it('allows everything when every gate is off, and no gate ran', () => {
    const off = resolveGates({ operations: false, workspace: false, commands: false, nothingTwice: false });
    const result = evaluate({ event: 'PreToolUse', call: bash('rm -rf / && git push -f origin main') }, PUSHED, off);
    expect(result.verdict).toStrictEqual({ decision: 'allow' });
    expect(result.ran).toStrictEqual([]);
  });

  it('collects notes from every gate that allowed, named after the gate', () => {
    const result = evaluate({ event: 'PreToolUse', call: bash('rm -rf "$OUT"') }, facts(), ALL);
    expect(result.verdict).toStrictEqual({ decision: 'allow' });
    expect(result.notes).toStrictEqual([
      'commands: could not tell what `rm -rf "$OUT"` deletes ("$OUT")',
      'workspace: could not tell where "$OUT" is, in `rm -rf "$OUT"`',
    ]);
  });

  it('after a call, never denies and reports its operations when the operations gate is on', () => {
    const call = bash('git push --force origin main');
    const result = { ok: true, output: ' + 1234567...89abcde HEAD -> main (forced update)' };
    expect(evaluate({ event: 'PostToolUse', call, result }, facts(), ALL)).toStrictEqual({
      verdict: { decision: 'allow' },
      ran: ['operations'],
      operations: [
        {
          kind: 'push',
          command: 'git push --force origin main',
          ok: true,
          remote: 'origin',
          branch: 'main',
          sha: '89abcde',
          toolId: 'toolu_01',
        },
      ],
      notes: [],
    });
    expect(evaluate({ event: 'PostToolUse', call, result }, facts(), { ...ALL, operations: false })).toMatchObject({
      ran: [],
      operations: [],
    });
  });

  it('has nothing to check on Stop', () => {
    expect(evaluate({ event: 'Stop' }, facts(), ALL)).toStrictEqual({
      verdict: { decision: 'allow' },
      ran: [],
      operations: [],
      notes: [],
    });
  });
});
