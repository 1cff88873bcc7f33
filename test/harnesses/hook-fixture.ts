/**
 * Shared inputs of the hook tests of every harness: the hook input each CLI really sent (captured in
 * test/fixtures/<harness>/hooks/, lab paths replaced by /srv/wt), a turn's command input with made-up
 * paths, and what the engine hands an adapter to install the gates with.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HarnessName } from '../../src/core/outcome.js';
import type { CommandInput } from '../../src/harnesses/adapter.js';
import type { HookInstallInput } from '../../src/harnesses/hooks.js';

/** The captured hook input `name` of `harness`, as text. */
export function hookFixture(harness: HarnessName, name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/${harness}/hooks/${name}.json`, import.meta.url)), 'utf8');
}

export const json = (value: unknown) => JSON.stringify(value);

/** A first turn's command input, with the harness's own `extraArgs` and `env`. */
export function commandInput(extra: Pick<CommandInput, 'extraArgs' | 'env'>): CommandInput {
  return {
    prompt: 'Add a README',
    cwd: '/work/tree',
    homeDir: '/state/runs/e1/attempts/2/home',
    path: '/usr/bin:/bin',
    ...extra,
  };
}

/** A gates file's SHA-256, as the engine passes it to the hooks. */
export const GATES_SHA256 = 'c0ffee'.padEnd(64, '0');

/** The gate runner as the engine gives it, at a path with a space (quoting is part of the contract). */
export const GATE: HookInstallInput = {
  shellCommand: (event) => `'/opt/harm flow/bin/harmflow' gate ${event}`,
  argv: (event) => ['/opt/harm flow/bin/harmflow', 'gate', event],
  homeDir: '/state/runs/e1/attempts/2/home',
  env: { HARMFLOW_GATE_DIR: '/state/runs/e1/attempts/2' },
  gatesSha256: GATES_SHA256,
};
