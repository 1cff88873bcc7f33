/**
 * `harmflow gc [--dry-run] [--retention <duration>] [--cache-limit-gib <gib>] [--json]` — removes the
 * worktrees of executions that ended longer than the retention ago (default 7 days) and hold no
 * unsaved work, with their own build folders; lists what was removed, with its size, and what was
 * kept and why (src/execution/worktree-gc.ts). Then trims the shared caches to the limit, whole tool
 * folders written longest ago first, never while a harness uses them (src/execution/cache-gc.ts).
 * `--dry-run` changes nothing and says what would go. The service does the same on its own schedule
 * (`serve --worktree-retention`, `serve --cache-limit-gib`).
 */
import type { Command } from 'commander';
import { formatBytes } from '../core/bytes.js';
import { formatDuration, parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { collectCaches, DEFAULT_CACHE_LIMIT_BYTES } from '../execution/cache-gc.js';
import {
  collectWorktrees,
  DEFAULT_WORKTREE_RETENTION_MS,
  type GcEntry,
  type GcReport,
} from '../execution/worktree-gc.js';
import { formatCacheReport } from './cache-report.js';
import { gibOption } from './option-values.js';

const DAY_MS = 86_400_000;

/** A retention as the command line writes one: `7d`, `1h 30m`, `0`. */
function formatRetention(ms: number): string {
  if (ms === 0) return '0';
  return ms % DAY_MS === 0 ? `${ms / DAY_MS}d` : formatDuration(ms);
}

/** The default retention as the command line writes it (DEFAULT_WORKTREE_RETENTION_MS). */
export const DEFAULT_RETENTION_TEXT = formatRetention(DEFAULT_WORKTREE_RETENTION_MS);

/** The default limit of the shared caches as the command line writes it, in GiB (DEFAULT_CACHE_LIMIT_BYTES). */
export const DEFAULT_CACHE_LIMIT_GIB_TEXT = String(DEFAULT_CACHE_LIMIT_BYTES / 1024 ** 3);

interface GcOptions {
  dryRun?: boolean;
  retention: string;
  cacheLimitGib: string;
  json?: boolean;
  home?: string;
}

/** Parses a retention: a duration (`7d`, `36h`) or `0` (expired as soon as ended). */
export function retention(text: string, option: string): number {
  if (text.trim() === '0') return 0;
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${option}: not a duration (examples: 7d, 36h, 0): ${text}`);
  return ms;
}

export function registerGc(program: Command): void {
  program
    .command('gc')
    .description("remove ended executions' worktrees after the retention, unless they hold unsaved work")
    .option('--dry-run', 'change nothing: list what would be removed and what is kept, and why')
    .option('--retention <duration>', 'keep a worktree this long after its execution ended', DEFAULT_RETENTION_TEXT)
    .option(
      '--cache-limit-gib <gib>',
      'trim the shared caches to this size, whole tool folders written longest ago first',
      DEFAULT_CACHE_LIMIT_GIB_TEXT,
    )
    .option('--json', 'print the report as JSON')
    .option('--home <dir>', 'state directory')
    .action(async (options: GcOptions) => {
      const retentionMs = retention(options.retention, '--retention');
      const limitBytes = gibOption(options.cacheLimitGib, '--cache-limit-gib');
      // Loaded here, so `serve` and the client (which read this file's defaults) do not load SQLite.
      const { openHome } = await import('./context-home.js');
      const { home, store } = openHome(options.home);
      try {
        const dryRun = options.dryRun === true;
        const report = await collectWorktrees({ home, store, now: Date.now(), retentionMs, dryRun });
        const caches = await collectCaches({ home, limitBytes, dryRun });
        const text = options.json
          ? JSON.stringify({ ...report, caches }, null, 2)
          : [...formatReport(report), ...formatCacheReport(caches)].join('\n');
        process.stdout.write(`${text}\n`);
      } finally {
        await store.close();
      }
    });
}

const LABELS: Readonly<Record<GcEntry['action'], string>> = {
  removed: 'removed',
  'would-remove': 'would remove',
  kept: 'kept',
};

/** The report for people: one line per worktree looked at, then the total. */
function formatReport(report: GcReport): string[] {
  const lines = report.entries.map((entry) => {
    const size = entry.bytes === undefined ? '?' : formatBytes(entry.bytes + (entry.cachesBytes ?? 0));
    const why = entry.why === undefined ? '' : `  ${entry.why}`;
    return `${LABELS[entry.action].padEnd(12)}  ${entry.id}  ${size.padStart(9)}  ${entry.taskName}${why}`;
  });
  const gone = report.entries.filter((entry) => entry.action !== 'kept').length;
  const kept = report.entries.length - gone;
  const waiting = `${report.notExpired} younger than the retention (${formatRetention(report.retentionMs)})`;
  const verb = report.dryRun ? 'would reclaim' : 'reclaimed';
  lines.push(
    `${verb} ${formatBytes(report.reclaimedBytes)} from ${plural(gone, 'worktree')}; ${kept} kept; ${waiting}`,
  );
  return lines;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
