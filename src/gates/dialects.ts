/**
 * The hook dialect of each harness that calls gates, loaded on demand: the gate runner imports only
 * the one its attempt's harness speaks (each is a small module; see src/harnesses/hooks.ts).
 */
import type { HookDialect } from '../harnesses/hooks.js';

const DIALECTS: Readonly<Record<string, () => Promise<HookDialect>>> = {
  'claude-code': async () => (await import('../harnesses/claude-code/hook-dialect.js')).claudeHookDialect,
  codex: async () => (await import('../harnesses/codex/hook-dialect.js')).codexHookDialect,
  gemini: async () => (await import('../harnesses/gemini/hook-dialect.js')).geminiHookDialect,
  opencode: async () => (await import('../harnesses/opencode/hook-dialect.js')).opencodeHookDialect,
};

/** The dialect of `harness`; throws an Error naming it when it has none. */
export async function loadDialect(harness: string): Promise<HookDialect> {
  const load = Object.hasOwn(DIALECTS, harness) ? DIALECTS[harness] : undefined;
  if (load === undefined) throw new Error(`no hook dialect for harness ${JSON.stringify(harness)}`);
  return load();
}
