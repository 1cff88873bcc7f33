/**
 * Whether the sandbox tests can run here: they need bubblewrap, really working (sandbox-probe.ts).
 * Without it they are skipped with one line saying how to install it; with HARMFLOW_REQUIRE_BWRAP=1
 * (CI) a missing bubblewrap is a failure, never a skip.
 */

import type { SandboxTools } from '../../src/proc/sandbox.js';
import { probeSandbox } from '../../src/proc/sandbox-probe.js';

const REQUIRED = process.env.HARMFLOW_REQUIRE_BWRAP === '1';

let announced = false;

/** The sandbox's tools when bubblewrap works here; otherwise undefined after one line (or a throw when required). */
export async function bwrapTools(): Promise<SandboxTools | undefined> {
  const probe = await probeSandbox(process.env.PATH ?? '');
  if (probe.available) return probe.tools;
  if (REQUIRED) throw new Error(`HARMFLOW_REQUIRE_BWRAP=1 but ${probe.reason}`);
  if (!announced) {
    announced = true;
    process.stdout.write(
      `bubblewrap not installed: apt-get install bubblewrap to run the sandbox tests (${probe.reason})\n`,
    );
  }
  return undefined;
}
