/**
 * The harness CLI versions HarmFlow's adapters were verified against: the versions the reference
 * notes recorded and the end-to-end tests run (through the loopback model-API simulator). The
 * installer installs exactly these; `harmflow harnesses` compares what is found on PATH with them.
 */
import type { HarnessName } from '../core/outcome.js';

export interface VerifiedCli {
  /** The npm package that ships the CLI. */
  readonly npmPackage: string;
  readonly version: string;
  /** The executable the package puts in node_modules/.bin. */
  readonly binary: string;
}

export const VERIFIED: Readonly<Record<HarnessName, VerifiedCli>> = {
  'claude-code': { npmPackage: '@anthropic-ai/claude-code', version: '2.1.332', binary: 'claude' },
  codex: { npmPackage: '@openai/codex', version: '0.171.0', binary: 'codex' },
  gemini: { npmPackage: '@google/gemini-cli', version: '0.61.0', binary: 'gemini' },
  opencode: { npmPackage: 'opencode-ai', version: '1.18.33', binary: 'opencode' },
};
