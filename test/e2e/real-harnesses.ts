/**
 * Whether the end-to-end tests against the real harness CLIs can run here. They need the verified
 * CLIs (`npx harmflow harnesses install` puts them in HarmFlow's harness cache and prints the
 * directories): HARMFLOW_HARNESS_BIN_DIRS lists those directories. Without it the tests are skipped
 * with one line saying how to enable them; with HARMFLOW_REQUIRE_HARNESSES=1 (CI) a missing CLI is
 * a failure, never a skip.
 */
import { delimiter } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { HarnessName } from '../../src/core/outcome.js';
import { getAdapter } from '../../src/harnesses/registry.js';
import { findExecutable } from '../../src/proc/which.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import type { ScriptsSpec } from '../../src/simulators/model-api/script.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { type Bench, GIT_IDENTITY, makeBench } from '../execution/fixture.js';
import { bwrapTools } from '../proc/bwrap.js';

export const HARNESS_BIN_DIRS = (process.env.HARMFLOW_HARNESS_BIN_DIRS ?? '').split(delimiter).filter(Boolean);
const REQUIRED = process.env.HARMFLOW_REQUIRE_HARNESSES === '1';

/** The PATH that holds the real CLIs first. */
export const REAL_PATH = [...HARNESS_BIN_DIRS, process.env.PATH ?? '/usr/bin:/bin'].join(delimiter);

/**
 * Whether the CLIs run sandboxed here, as every task does by default where bubblewrap works (with
 * HARMFLOW_REQUIRE_BWRAP=1, CI, its absence fails the tests that import this).
 */
export const SANDBOXED = (await bwrapTools()) !== undefined;

let announced = false;

/**
 * True when every harness in `needed` is installed in the listed directories. Otherwise prints one
 * line (once) and returns false — or throws when the CLIs are required.
 */
export function realHarnessesAvailable(needed: readonly HarnessName[]): boolean {
  const missing = needed.filter(
    (harness) => !findExecutable(getAdapter(harness).binary, HARNESS_BIN_DIRS.join(delimiter)),
  );
  if (missing.length === 0) return true;
  const how = 'run `npx harmflow harnesses install` and export the HARMFLOW_HARNESS_BIN_DIRS it prints';
  if (REQUIRED) throw new Error(`HARMFLOW_REQUIRE_HARNESSES=1 but ${missing.join(', ')} not found: ${how}`);
  if (!announced) {
    announced = true;
    process.stdout.write(`real-CLI tests skipped (${missing.join(', ')} not installed): ${how}\n`);
  }
  return false;
}

/**
 * A task's chain link running the real CLI against the model-API simulator at `url` on `script`:
 * Claude Code with an OAuth token (a subscription, so limits say when they reset), Codex on a
 * catalogued model; the git identity passed through.
 */
export function realLink(url: string, harness: HarnessName, script: string): Record<string, unknown> {
  const connection = connectHarness(harness, {
    url,
    script,
    ...(harness === 'claude-code' && { auth: 'oauth' as const }),
  });
  return {
    harness,
    ...(harness === 'codex' && { model: 'gpt-5.5' }),
    env: connection.env,
    args: connection.args,
    passEnv: Object.keys(GIT_IDENTITY),
  };
}

/** What a file of real-CLI tests works with: the model-API simulator, and a fresh bench per test. */
export interface RealCliLab {
  readonly api: ModelApi;
  readonly bench: Bench;
}

/**
 * Starts the model-API simulator on `scripts` for the file and makes a bench (a repository, an
 * origin, a state directory) for each test, closing both after; does nothing when `enabled` is
 * false. Registers vitest's hooks: call it at the top level of a test file.
 */
export function realCliLab(enabled: boolean, scripts: () => ScriptsSpec): RealCliLab {
  let api: ModelApi | undefined;
  let bench: Bench | undefined;
  beforeAll(async () => {
    if (enabled) api = await startModelApi({ scripts: scripts() });
  });
  afterAll(async () => {
    await api?.close();
  });
  beforeEach(() => {
    if (enabled) bench = makeBench();
  });
  afterEach(async () => {
    await bench?.cleanup();
  });
  return {
    get api() {
      if (api === undefined) throw new Error('the model-API simulator is not started (the CLIs are missing)');
      return api;
    },
    get bench() {
      if (bench === undefined) throw new Error('no bench outside a test (the CLIs are missing)');
      return bench;
    },
  };
}
