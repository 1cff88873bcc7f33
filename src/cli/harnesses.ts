/**
 * `harmflow harnesses` — for each harness, whether its CLI is found (on PATH, or installed in
 * HarmFlow's harness cache), its version, whether that is the verified version, and its quota as the
 * registry knows it (`--json`: every account, simulated ones included).
 * `harmflow harnesses install [NAME…]` installs the verified versions into the cache and prints the
 * PATH entries that use them.
 */
import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { harmflowHome } from '../core/home.js';
import { HARNESS_NAMES, HarnessName } from '../core/outcome.js';
import { describeQuota, type QuotaStatus, readQuotaStatuses } from '../execution/quota.js';
import { cachedBinDir, findHarness, harnessCacheDir, installHarness } from '../harnesses/install.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';

/** The quota registry of the state directory; empty when it has none yet (nothing is created). */
async function readQuota(explicit: string | undefined): Promise<QuotaStatus[]> {
  const home = harmflowHome(explicit);
  if (!existsSync(home.database)) return [];
  const store = openSqliteStore(home.database);
  try {
    return await readQuotaStatuses(store);
  } finally {
    await store.close();
  }
}

const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

export function registerHarnesses(program: Command): void {
  const command = program
    .command('harnesses')
    .description('show each harness CLI: found or not, its version, whether it is the verified one, and its quota')
    .option('--json', 'print JSON')
    .option(
      '--home <dir>',
      'the state directory whose quota registry to show (default: $HARMFLOW_HOME, else ~/.harmflow)',
    )
    .action(async (options: { json?: boolean; home?: string }) => {
      const path = process.env.PATH ?? '';
      const quota = await readQuota(options.home);
      const rows = await Promise.all(
        HARNESS_NAMES.map(async (harness) => {
          const onPath = await findHarness(harness, path);
          const cached = await findHarness(harness, cachedBinDir(harness));
          return {
            ...onPath,
            ...(cached.path !== undefined && { cached: cached.path }),
            quota: quota.filter((status) => status.harness === harness),
          };
        }),
      );
      if (options.json) return print(JSON.stringify(rows, null, 2));
      print(`${'HARNESS'.padEnd(12)} ${'VERSION'.padEnd(9)} ${'VERIFIED'.padEnd(18)} ${'QUOTA'.padEnd(40)} FOUND`);
      for (const row of rows) {
        const verdict = row.path === undefined ? '-' : row.verified ? 'yes' : `no (${row.verifiedVersion} is)`;
        const where = row.path ?? `not on PATH${row.cached ? `; verified copy in cache: ${row.cached}` : ''}`;
        const own = row.quota.find((status) => status.account === '');
        const state = own === undefined ? 'unknown' : describeQuota(own);
        print(
          `${row.harness.padEnd(12)} ${(row.version ?? '-').padEnd(9)} ${verdict.padEnd(18)} ${state.padEnd(40)} ${where}`,
        );
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
