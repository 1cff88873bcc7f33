/**
 * `harmflow harnesses` — for each harness, whether its CLI is found (on PATH, or installed in
 * HarmFlow's harness cache), its version, and whether that is the verified version.
 * `harmflow harnesses install [NAME…]` installs the verified versions into the cache and prints the
 * PATH entries that use them.
 */
import { delimiter } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { HARNESS_NAMES, HarnessName } from '../core/outcome.js';
import { cachedBinDir, findHarness, harnessCacheDir, installHarness } from '../harnesses/install.js';

const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

export function registerHarnesses(program: Command): void {
  const command = program
    .command('harnesses')
    .description('show each harness CLI: found or not, its version, whether it is the verified one')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const path = process.env.PATH ?? '';
      const rows = await Promise.all(
        HARNESS_NAMES.map(async (harness) => {
          const onPath = await findHarness(harness, path);
          const cached = await findHarness(harness, cachedBinDir(harness));
          return { ...onPath, ...(cached.path !== undefined && { cached: cached.path }) };
        }),
      );
      if (options.json) return print(JSON.stringify(rows, null, 2));
      print(`${'HARNESS'.padEnd(12)} ${'VERSION'.padEnd(9)} ${'VERIFIED'.padEnd(18)} FOUND`);
      for (const row of rows) {
        const verdict = row.path === undefined ? '-' : row.verified ? 'yes' : `no (${row.verifiedVersion} is)`;
        const where = row.path ?? `not on PATH${row.cached ? `; verified copy in cache: ${row.cached}` : ''}`;
        print(`${row.harness.padEnd(12)} ${(row.version ?? '-').padEnd(9)} ${verdict.padEnd(18)} ${where}`);
      }
    });

  command
    .command('install')
    .description(`install the verified harness CLIs into the harness cache (${harnessCacheDir()})`)
    .argument('[names...]', `harnesses to install (default: all of ${HARNESS_NAMES.join(', ')})`)
    .option('--json', 'print JSON')
    .action(async (names: string[], options: { json?: boolean }) => {
      const chosen = (names.length > 0 ? names : [...HARNESS_NAMES]).map((name) => {
        const parsed = HarnessName.safeParse(name);
        if (!parsed.success) throw new UsageError(`unknown harness "${name}" (known: ${HARNESS_NAMES.join(', ')})`);
        return parsed.data;
      });
      const results = await Promise.all(chosen.map((harness) => installHarness(harness)));
      if (options.json) return print(JSON.stringify(results, null, 2));
      for (const result of results) {
        print(`${result.harness.padEnd(12)} ${result.installed ? 'installed' : 'already installed'}  ${result.binDir}`);
      }
      print('');
      print('To run these CLIs, put them on PATH:');
      print(`  export PATH=${results.map((r) => r.binDir).join(delimiter)}${delimiter}$PATH`);
      print('To run the end-to-end tests against them:');
      print(`  export HARMFLOW_HARNESS_BIN_DIRS=${results.map((r) => r.binDir).join(delimiter)}`);
    });
}
