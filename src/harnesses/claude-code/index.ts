/**
 * The Claude Code adapter (`@anthropic-ai/claude-code`, verified against 2.1.332): its command line,
 * stream-json parser and turn classifier, as one `HarnessAdapter` value.
 */
import type { HarnessAdapter } from '../adapter.js';
import { classifyClaude } from './classify.js';
import { CLAUDE_BINARY, claudeCommand } from './command.js';
import { claudeHooks } from './hooks.js';
import { createClaudeParser } from './parse.js';

export const claudeCodeAdapter: HarnessAdapter = {
  name: 'claude-code',
  binary: CLAUDE_BINARY,
  npmPackage: '@anthropic-ai/claude-code',
  credentialEnv: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_BASE_URL'],
  command: claudeCommand,
  createParser: createClaudeParser,
  classify: (input) => classifyClaude(input),
  hooks: claudeHooks,
};
