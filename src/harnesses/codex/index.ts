/**
 * The Codex CLI adapter (`@openai/codex`, verified against 0.171.0): its command line and config file,
 * `exec --json` parser and turn classifier, as one `HarnessAdapter` value.
 */
import type { HarnessAdapter } from '../adapter.js';
import { classifyCodex } from './classify.js';
import { CODEX_BINARY, codexCommand } from './command.js';
import { codexHooks } from './hooks.js';
import { createCodexParser } from './parse.js';

export const codexAdapter: HarnessAdapter = {
  name: 'codex',
  binary: CODEX_BINARY,
  npmPackage: '@openai/codex',
  credentialEnv: ['OPENAI_API_KEY'],
  command: codexCommand,
  createParser: createCodexParser,
  classify: (input) => classifyCodex(input),
  hooks: codexHooks,
};
