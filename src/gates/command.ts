/**
 * The command line a harness's hook runs to reach the gate runner: this Node and this package's
 * `harmflow` launcher, so hooks call the HarmFlow that installed them whatever is on the agent's PATH.
 */
import { HARMFLOW_BIN } from '../core/harmflow-bin.js';
import { shellWord } from '../core/shell-words.js';
import type { GateEvent } from './hook-event.js';

export { HARMFLOW_BIN };

/** `node …/bin/harmflow.js gate <event>` as an argv. */
export function gateArgv(event: GateEvent): readonly string[] {
  return [process.execPath, HARMFLOW_BIN, 'gate', event];
}

/** The same as one shell command line. */
export function gateShellCommand(event: GateEvent): string {
  return gateArgv(event).map(shellWord).join(' ');
}
