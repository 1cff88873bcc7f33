/**
 * The OpenCode adapter (`opencode-ai`, verified against 1.18.33): its command line and files,
 * `run --format json` parser, turn classifier and stderr watcher, as one `HarnessAdapter` value.
 */
import type { HarnessAdapter } from '../adapter.js';
import { classifyOpencode } from './classify.js';
import { OPENCODE_BINARY, opencodeCommand } from './command.js';
import { opencodeHooks } from './hooks.js';
import { createOpencodeParser } from './parse.js';
import { createOpencodeStderrWatcher } from './stderr.js';

export const opencodeAdapter: HarnessAdapter = {
  name: 'opencode',
  binary: OPENCODE_BINARY,
  npmPackage: 'opencode-ai',
  credentialEnv: [
    'OPENCODE_CONFIG',
    'OPENCODE_CONFIG_CONTENT',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GEMINI_API_KEY',
  ],
  command: opencodeCommand,
  createParser: createOpencodeParser,
  createStderrWatcher: () => createOpencodeStderrWatcher(),
  classify: (input) => classifyOpencode(input),
  hooks: opencodeHooks,
};
