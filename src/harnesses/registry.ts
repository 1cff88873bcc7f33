/**
 * The harness registry: maps each `HarnessName` to its adapter. A new harness is one folder plus one
 * entry here; the `Record` type makes a missing entry a compile error.
 */
import type { HarnessName } from '../core/outcome.js';
import type { HarnessAdapter } from './adapter.js';
import { claudeCodeAdapter } from './claude-code/index.js';
import { codexAdapter } from './codex/index.js';
import { geminiAdapter } from './gemini/index.js';
import { opencodeAdapter } from './opencode/index.js';

/** Every adapter, by harness name. */
export const ADAPTERS: Readonly<Record<HarnessName, HarnessAdapter>> = {
  'claude-code': claudeCodeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  opencode: opencodeAdapter,
};

/** Returns the adapter of a harness. */
export function getAdapter(name: HarnessName): HarnessAdapter {
  return ADAPTERS[name];
}
