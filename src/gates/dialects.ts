/**
 * The hook dialect of each harness that calls gates (see src/harnesses/hooks.ts). All four are small
 * and the runner's bundle carries them anyway, so they are plain imports.
 */
import { claudeHookDialect } from '../harnesses/claude-code/hook-dialect.js';
import { codexHookDialect } from '../harnesses/codex/hook-dialect.js';
import { geminiHookDialect } from '../harnesses/gemini/hook-dialect.js';
import type { HookDialect } from '../harnesses/hooks.js';
import { opencodeHookDialect } from '../harnesses/opencode/hook-dialect.js';

const DIALECTS: Readonly<Record<string, HookDialect>> = {
  'claude-code': claudeHookDialect,
  codex: codexHookDialect,
  gemini: geminiHookDialect,
  opencode: opencodeHookDialect,
};

/** The dialect of `harness`; throws an Error naming it when it has none. */
export function dialectOf(harness: string): HookDialect {
  const dialect = knownDialect(harness);
  if (dialect === undefined) throw new Error(`no hook dialect for harness ${JSON.stringify(harness)}`);
  return dialect;
}

/** The dialect of `harness`; undefined when there is no harness or it has no dialect. */
export function knownDialect(harness: string | undefined): HookDialect | undefined {
  return harness !== undefined && Object.hasOwn(DIALECTS, harness) ? DIALECTS[harness] : undefined;
}
