/**
 * Whether the OS sandbox (sandbox.ts) works on this host: Linux, bubblewrap and GNU env on the PATH,
 * and bubblewrap allowed to make its namespaces (a container or a kernel may forbid them). Found out
 * once per process and PATH by starting a sandbox exactly as a harness gets one, around `true`; the
 * answer is kept, so every later execution pays nothing for it.
 */
import { runCommand } from './run.js';
import { type SandboxTools, sandboxed } from './sandbox.js';
import { findExecutable } from './which.js';

export type SandboxProbe =
  | { readonly available: true; readonly tools: SandboxTools }
  | { readonly available: false; readonly reason: string };

/** The one line that says how to get bubblewrap, wherever its absence is reported. */
const INSTALL_BUBBLEWRAP = '`apt-get install bubblewrap` on Debian and Ubuntu';

/**
 * How long the trial sandbox may take: 10 s. A sandboxed `echo` prints its line in 11–12 ms at the
 * median (bench/sandbox.mjs, 2 cores); only a host stalled far beyond running a harness at all takes
 * longer, and then the sandbox counts as unusable.
 */
const PROBE_TIMEOUT_MS = 10_000;

const answers = new Map<string, Promise<SandboxProbe>>();

/** Whether a sandbox can be made here, with bubblewrap and env looked up on `searchPath`. Never rejects. */
export function probeSandbox(searchPath: string): Promise<SandboxProbe> {
  let answer = answers.get(searchPath);
  if (answer === undefined) {
    answer = probe(searchPath);
    answers.set(searchPath, answer);
  }
  return answer;
}

async function probe(searchPath: string): Promise<SandboxProbe> {
  if (process.platform !== 'linux') {
    return { available: false, reason: `bubblewrap runs on Linux only, and this is ${process.platform}` };
  }
  const bwrap = findExecutable('bwrap', searchPath);
  if (bwrap === undefined) {
    return { available: false, reason: `bubblewrap is not installed (${INSTALL_BUBBLEWRAP})` };
  }
  const env = findExecutable('env', searchPath);
  if (env === undefined) return { available: false, reason: 'env (GNU coreutils) is not on the PATH' };
  const tools = { bwrap, env };
  const trial = sandboxed({ command: 'true', args: [] }, '/', { hidden: [], writable: [], readOnly: [] }, tools);
  const result = await runCommand(trial.command, trial.args, {
    cwd: '/',
    env: { PATH: searchPath },
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  if (result.exitCode === 0) return { available: true, tools };
  const why =
    result.stderr.trim().split('\n')[0] ||
    (result.timedOut ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s` : `exit ${result.exitCode}`);
  return { available: false, reason: `bubblewrap cannot make a sandbox here (${why})` };
}
