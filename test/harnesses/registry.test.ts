import { describe, expect, it } from 'vitest';
import { HARNESS_NAMES } from '../../src/core/outcome.js';
import { claudeCodeAdapter } from '../../src/harnesses/claude-code/index.js';
import { codexAdapter } from '../../src/harnesses/codex/index.js';
import { ADAPTERS, getAdapter } from '../../src/harnesses/registry.js';

describe('harness registry', () => {
  it('returns each harness its own adapter', () => {
    expect(getAdapter('claude-code')).toBe(claudeCodeAdapter);
    expect(getAdapter('codex')).toBe(codexAdapter);
  });

  it('has an adapter named after every harness', () => {
    expect(Object.keys(ADAPTERS).sort()).toEqual([...HARNESS_NAMES].sort());
    for (const name of HARNESS_NAMES) expect(getAdapter(name).name).toBe(name);
  });

  it('names the binaries and npm packages', () => {
    expect([claudeCodeAdapter.binary, claudeCodeAdapter.npmPackage]).toEqual(['claude', '@anthropic-ai/claude-code']);
    expect([codexAdapter.binary, codexAdapter.npmPackage]).toEqual(['codex', '@openai/codex']);
  });

  it('builds commands for the binary it names', () => {
    const input = { prompt: 'p', cwd: '/w', homeDir: '/h', extraArgs: [], env: {}, path: '/usr/bin' };
    for (const name of HARNESS_NAMES) {
      const adapter = getAdapter(name);
      expect(adapter.command(input).command).toBe(adapter.binary);
    }
  });
});
