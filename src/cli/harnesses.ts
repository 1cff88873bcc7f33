/**
 * `harmflow harnesses` — for each harness, whether its CLI is found (on PATH, or installed in
 * HarmFlow's harness cache), its version, whether that is the verified version, and its quota as the
 * registry knows it; under it, a row for each other link the registry holds a quota for — a named
 * account, or a simulated link (one per scenario: execution/quota.ts) — with the same columns
 * (`--json`: every account, as the registry holds it).
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

/** How quotaAccount (execution/quota.ts) begins a simulated link's account. */
const SIMULATED = 'sim:';

/**
 * The link a registry account stands for, in words: `simulated: <scenario>` (`simulated, account
 * work: <scenario>` when the link names one) or `account work`.
 */
export function linkOf(account: string): string {
  if (!account.startsWith(SIMULATED)) return `account ${account}`;
  const rest = account.slice(SIMULATED.length);
  // An account name has no ':' (core/task.ts), so one before the scenario ends it.
  const named = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63}):(.+)$/.exec(rest);
  return named === null ? `simulated: ${rest}` : `simulated, account ${named[1]}: ${named[2]}`;
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
        const line = (version: string, verified: string, quota: string, last: string) =>
          print(`${row.harness.padEnd(12)} ${version.padEnd(9)} ${verified.padEnd(18)} ${quota.padEnd(40)} ${last}`);
        line(row.version ?? '-', verdict, own === undefined ? 'unknown' : describeQuota(own), where);
        for (const status of row.quota) {
          if (status.account === '') continue;
          // A simulated link runs `sim`, not this CLI: its version says nothing of it.
          const simulated = status.account.startsWith(SIMULATED);
          line(
            simulated ? '-' : (row.version ?? '-'),
            simulated ? '-' : verdict,
            describeQuota(status),
            linkOf(status.account),
          );
        }
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
