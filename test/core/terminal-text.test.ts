import { describe, expect, it } from 'vitest';
import { inertText } from '../../src/core/terminal-text.js';

/** Every character a terminal acts on: C0 but \t and \n, DEL, C1. */
const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, code) => code).filter((code) => code !== 0x09 && code !== 0x0a),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, index) => 0x80 + index),
].map((code) => String.fromCharCode(code));

describe('inertText', () => {
  it('shows escape sequences as text: OSC 52 (clipboard), OSC 8 (links), CSI, BEL', () => {
    expect(inertText('\x1b]52;c;ZWNobyBoaQ==\x07')).toBe('\\x1b]52;c;ZWNobyBoaQ==\\x07');
    expect(inertText('\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\')).toBe(
      '\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\',
    );
    expect(inertText('before\x1b[2Jafter')).toBe('before\\x1b[2Jafter');
    expect(inertText('\x9b31m')).toBe('\\x9b31m');
  });

  it('leaves no character a terminal acts on, and keeps newlines and tabs', () => {
    const all = `a\tb\nc${CONTROLS.join('')}d`;
    const shown = inertText(all);
    expect([...shown].filter((char) => CONTROLS.includes(char))).toEqual([]);
    expect(shown.startsWith('a\tb\nc\\x00\\x01')).toBe(true);
    expect(shown).toContain('\\x0d');
    expect(shown).toContain('\\x7f\\x80');
    expect(shown.endsWith('\\x9fd')).toBe(true);
  });

  it('leaves printable text as it is, other languages and emoji included', () => {
    const text = 'ok: 3 passed — naïve café, 日本語, 🚀, ═══ \\x1b written out';
    expect(inertText(text)).toBe(text);
  });
});
