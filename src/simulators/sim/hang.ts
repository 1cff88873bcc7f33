/**
 * The `hang` ending: the simulated agent prints nothing more and never exits by itself, so tests can
 * prove that HarmFlow's timeouts and kills work. With `ignoreInterrupt` it traps SIGTERM and SIGINT
 * and keeps running (only SIGKILL ends it); with `child` it first starts a grandchild in its own
 * process group (not detached), so a kill of the group must reach it too. The grandchild ignores
 * interrupts exactly when the simulator does.
 */
import { spawn } from 'node:child_process';

/** ~12 days, under the 2^31-1 ms timer limit: a timer that keeps the event loop alive. */
const KEEP_ALIVE_MS = 2 ** 30;

export interface HangOptions {
  readonly ignoreInterrupt: boolean;
  readonly child: boolean;
}

/**
 * The grandchild: `sleep` outlives any test (1000 s). Ignoring a signal with `trap ''` survives
 * `exec`, so the sleep itself ignores SIGTERM/SIGINT, as /proc/<pid>/status (SigIgn) shows.
 */
const GRANDCHILD = { plain: 'exec sleep 1000', ignoring: "trap '' TERM INT; exec sleep 1000" };

/** Hangs forever (returns a promise that never settles). */
export function hang(options: HangOptions): Promise<never> {
  if (options.ignoreInterrupt) {
    process.on('SIGTERM', () => {});
    process.on('SIGINT', () => {});
  }
  if (options.child) {
    const script = options.ignoreInterrupt ? GRANDCHILD.ignoring : GRANDCHILD.plain;
    spawn('/bin/sh', ['-c', script], { stdio: 'ignore' });
  }
  setInterval(() => {}, KEEP_ALIVE_MS);
  return new Promise<never>(() => {});
}
