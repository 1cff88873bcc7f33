import { describe, expect, it } from 'vitest';
import { readShellWord, unwrapShell } from '../../../src/harnesses/codex/shell-word.js';

describe('unwrapShell', () => {
  const cases = [
    [
      "/bin/bash -lc 'echo created-by-codex-shell > codex_shell.txt && cat codex_shell.txt'",
      'echo created-by-codex-shell > codex_shell.txt && cat codex_shell.txt',
    ],
    ['bash -lc "npm test -- --run"', 'npm test -- --run'],
    ["/usr/bin/bash -lc 'git commit -m '\\''fix: it'\\'''", "git commit -m 'fix: it'"],
    ['bash -lc "echo \\"hi\\" \\$HOME \\\\ done"', 'echo "hi" $HOME \\ done'],
    ["sh -c 'ls -la'", 'ls -la'],
    ['bash -lc \'a\'"b"c', 'abc'],
  ] as const;
  for (const [wrapped, inner] of cases) {
    it(`unwraps ${wrapped}`, () => expect(unwrapShell(wrapped)).toBe(inner));
  }

  const untouched = [
    'npm test',
    "bash -lc 'echo a' && rm -rf /",
    'bash -lc echo $HOME',
    "bash -lc 'unterminated",
    'bash -lc "unterminated',
    "python -c 'print(1)'",
  ];
  for (const command of untouched) {
    it(`leaves ${command} as is`, () => expect(unwrapShell(command)).toBe(command));
  }
});

describe('readShellWord', () => {
  it('reads plain words, escapes and line continuations', () => {
    expect(readShellWord('plain')).toBe('plain');
    expect(readShellWord('a\\ b')).toBe('a b');
    expect(readShellWord('"a\\\nb"')).toBe('ab');
    expect(readShellWord('"keep \\n as is"')).toBe('keep \\n as is');
  });

  it('refuses text that is more than one literal word', () => {
    expect(readShellWord('a b')).toBeUndefined();
    expect(readShellWord('$HOME')).toBeUndefined();
    expect(readShellWord('a;b')).toBeUndefined();
    expect(readShellWord('trailing\\')).toBeUndefined();
  });
});
