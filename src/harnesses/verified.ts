/**
 * The harness CLI versions HarmFlow's adapters were verified against: the versions the reference
 * notes recorded and the end-to-end tests run (through the loopback model-API simulator). The
 * installer installs exactly these; `harmflow harnesses` compares what is found on PATH with them.
 * Each CLI's executable and npm package are its adapter's (`binary`, `npmPackage`).
 */
import type { HarnessName } from '../core/outcome.js';

export const VERIFIED_VERSION: Readonly<Record<HarnessName, string>> = {
  'claude-code': '2.1.332',
  codex: '0.171.0',
  gemini: '0.61.0',
  opencode: '1.18.33',
};
