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
      operations: [],
      notes: [],
    });
  });

  it('answers with the first deny in order nothing-twice, commands, workspace', () => {
    // Forcing the execution's own pushed branch from outside the worktree: all three gates would refuse.
    const call = bash(`cd /elsewhere && git push --force origin HEAD:${BRANCH} && rm -rf /`);
    const first = evaluate({ event: 'PreToolUse', call }, PUSHED, ALL).verdict;
    expect(first.decision === 'deny' && first.message).toMatch(/^HarmFlow's nothing-twice gate/);

    const withoutNothingTwice = evaluate({ event: 'PreToolUse', call }, PUSHED, {
      ...ALL,
      nothingTwice: false,
    }).verdict;
    expect(withoutNothingTwice.decision === 'deny' && withoutNothingTwice.message).toMatch(/^HarmFlow's commands gate/);

    const onlyWorkspace = evaluate({ event: 'PreToolUse', call }, PUSHED, {
      ...ALL,
      nothingTwice: false,
      commands: false,
    });
    expect(onlyWorkspace.verdict.decision === 'deny' && onlyWorkspace.verdict.message).toMatch(
      /^HarmFlow's workspace gate/,
    );
  });

  it('allows everything when every gate is off', () => {
    const off = resolveGates({ operations: false, workspace: false, commands: false, nothingTwice: false });
    expect(
      evaluate({ event: 'PreToolUse', call: bash('rm -rf / && git push -f origin main') }, PUSHED, off).verdict,
    ).toStrictEqual({
      decision: 'allow',
    });
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
      operations: [
        {
          kind: 'push',
          command: 'git push --force origin main',
          ok: true,
          remote: 'origin',
          branch: 'main',
          toolId: 'toolu_01',
        },
      ],
      notes: [],
    });
    expect(
      evaluate({ event: 'PostToolUse', call, result }, facts(), { ...ALL, operations: false }).operations,
    ).toStrictEqual([]);
  });

  it('has nothing to check on Stop', () => {
    expect(evaluate({ event: 'Stop' }, facts(), ALL)).toStrictEqual({
      verdict: { decision: 'allow' },
      operations: [],
      notes: [],
    });
  });
});
