/**
 * The Gemini CLI adapter (`@google/gemini-cli`, verified against 0.61.0): its command line and
 * settings file, stream-json parser, stderr quota watcher and turn classifier, as one
 * `HarnessAdapter` value.
 */
import type { HarnessAdapter } from '../adapter.js';
import { classifyGemini } from './classify.js';
import { GEMINI_BINARY, geminiCommand } from './command.js';
import { geminiHooks } from './hooks.js';
import { createGeminiParser } from './parse.js';
import { createGeminiStderrWatcher } from './watch.js';

export const geminiAdapter: HarnessAdapter = {
  name: 'gemini',
  binary: GEMINI_BINARY,
  npmPackage: '@google/gemini-cli',
  credentialEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL'],
  command: geminiCommand,
  createParser: createGeminiParser,
  createStderrWatcher: () => createGeminiStderrWatcher(),
  classify: (input) => classifyGemini(input),
  hooks: geminiHooks,
};
