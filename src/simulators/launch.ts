/**
 * Turns a harness command into the same command played by the simulator: `node bin/sim.js` with
 * the harness's own argv, so the run goes through that harness's real adapter (parse, classify).
 */
import { fileURLToPath } from 'node:url';
import type { SimulatedHarness } from '../core/outcome.js';
import type { CommandSpec } from '../harnesses/adapter.js';

/** The simulator's entry script inside this package. */
export const SIM_BIN = fileURLToPath(new URL('../../bin/sim.js', import.meta.url));

/** The fake forge's bin directory (holds `gh`); put it on PATH for simulated runs. */
export const FORGE_BIN_DIR = fileURLToPath(new URL('../../bin/forge', import.meta.url));

/** Returns `spec` rewritten to run the simulator as `harness` from `scenario`. */
export function simulatedCommand(spec: CommandSpec, harness: SimulatedHarness, scenario: string): CommandSpec {
  return {
    command: process.execPath,
    args: [SIM_BIN, ...spec.args],
    env: { ...spec.env, HARMFLOW_SIM_AS: harness, HARMFLOW_SIM_SCENARIO: scenario },
    dirs: spec.dirs,
    files: spec.files,
  };
}
