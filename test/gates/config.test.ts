import { describe, expect, it } from 'vitest';
import { DEFAULT_CUSTOM_TIMEOUT_MS, GatesConfig } from '../../src/core/gates-config.js';
import { resolveSettings } from '../../src/gates/resolve.js';

/** A `gates:` section validated and normalized, as the engine and the runner have it. */
const resolveGates = (section: unknown) => resolveSettings(GatesConfig.parse(section ?? {}));

describe('resolveGates', () => {
  it('turns every built-in gate on when the task has no gates section, and fails open', () => {
    expect(resolveGates(undefined)).toStrictEqual({
      operations: true,
      workspace: { allowPaths: [] },
      commands: { deny: [], allow: [] },
      nothingTwice: true,
      custom: [],
      failClosed: false,
    });
    expect(resolveGates({})).toStrictEqual(resolveGates(undefined));
  });

  it('turns gates off one by one', () => {
    expect(resolveGates({ operations: false, workspace: false, commands: false, nothingTwice: false })).toMatchObject({
      operations: false,
      workspace: false,
      commands: false,
      nothingTwice: false,
    });
  });

  it('reads workspace paths, command patterns (compiled) and relaxed rules', () => {
    const gates = resolveGates({
      workspace: { allowPaths: ['~/.cache/tool', '/opt/shared'] },
      commands: { deny: [{ pattern: '^npm publish\\b', message: 'no' }], allow: ['push-base'] },
    });
    expect(gates.workspace).toStrictEqual({ allowPaths: ['~/.cache/tool', '/opt/shared'] });
    if (gates.commands === false) throw new Error('commands should be on');
    expect(gates.commands.allow).toStrictEqual(['push-base']);
    expect(gates.commands.deny[0]?.pattern.test('npm publish --tag next')).toBe(true);
  });

  it('gives custom gates their defaults, failClosed from the section unless they set their own', () => {
    const gates = resolveGates({
      failClosed: true,
      custom: [
        { name: 'lint', command: './gate.sh' },
        { name: 'audit', command: 'audit-gate', events: ['PostToolUse'], failClosed: false, timeoutMs: 800 },
      ],
    });
    expect(gates.custom).toStrictEqual([
      {
        name: 'lint',
        command: './gate.sh',
        events: ['PreToolUse'],
        timeoutMs: DEFAULT_CUSTOM_TIMEOUT_MS,
        failClosed: true,
      },
      { name: 'audit', command: 'audit-gate', events: ['PostToolUse'], timeoutMs: 800, failClosed: false },
    ]);
  });

  it.each([
    [{ comands: true }, /comands/],
    [{ commands: { allow: ['force-push'] } }, /force-push-base/],
    [{ commands: { deny: [{ pattern: '(', message: 'x' }] } }, /not a valid regular expression/],
    [{ workspace: { allowPaths: ['relative/dir'] } }, /absolute path or one under ~\//],
    [{ custom: [{ name: 'has space', command: 'x' }] }, /letters, digits/],
    [{ custom: [{ name: 'x', command: 'x', events: ['SessionStart'] }] }, /PreToolUse/],
  ])('refuses %j', (section, message) => {
    expect(() => resolveGates(section)).toThrow(message);
  });
});
