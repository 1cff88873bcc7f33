/**
 * Turns a harness command into the same command played by the simulator: `node bin/sim.js` with
 * the harness's own argv, so the run goes through that harness's real adapter (parse, classify).
 * The simulated harness finds the fake forge's `gh` first on its PATH, keeping its pull requests in
 * `forgeDir`, so a scenario's `pr` step opens a pull request with nothing else to set up.
 */
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimulatedHarness } from '../core/outcome.js';
import type { CommandSpec } from '../harnesses/adapter.js';

/** The simulator's entry script inside this package. */
export const SIM_BIN = fileURLToPath(new URL('../../bin/sim.js', import.meta.url));

/** The fake forge's bin directory (holds `gh`): first on a simulated harness's PATH. */
export const FORGE_BIN_DIR = fileURLToPath(new URL('../../bin/forge', import.meta.url));

/** The environment variable naming the folder the fake forge keeps its pull requests in. */
export const FORGE_DIR_ENV = 'HARMFLOW_FORGE_DIR';

/**
 * Returns `spec` rewritten to run the simulator as `harness` from `scenario`, with the fake forge
 * first on its PATH and `forgeDir` as its store — unless the link's own environment names a forge
 * folder (`env` or `passEnv`), which wins.
 */
export function simulatedCommand(
  spec: CommandSpec,
  harness: SimulatedHarness,
  scenario: string,
  forgeDir: string,
): CommandSpec {
  const path = [FORGE_BIN_DIR, ...(spec.env.PATH ? [spec.env.PATH] : [])].join(delimiter);
  return {
    command: process.execPath,
    args: [SIM_BIN, ...spec.args],
    env: {
      [FORGE_DIR_ENV]: forgeDir,
      ...spec.env,
      PATH: path,
      HARMFLOW_SIM_AS: harness,
      HARMFLOW_SIM_SCENARIO: scenario,
    },
    dirs: spec.dirs,
    files: spec.files,
  };
}
