/**
 * The shared caches' part of `harmflow gc`'s report for people (src/execution/cache-gc.ts): when the
 * caches are over the limit, one line per tool folder, written longest ago first, saying which go;
 * then one line with the total, the limit and what was (or would be) reclaimed, or why nothing was.
 * A state directory with no shared cache yet gets no line about them.
 */
import { formatBytes } from '../core/bytes.js';
import type { CacheAction, CacheGcReport } from '../execution/cache-gc.js';

const LABELS: Readonly<Record<CacheAction, string>> = {
  removed: 'removed',
  'would-remove': 'would remove',
  kept: 'kept',
};

/** The lines; a single summary line while the caches fit under the limit; none when there are no caches. */
export function formatCacheReport(report: CacheGcReport): string[] {
  if (report.entries.length === 0) return [];
  const total = `shared caches ${formatBytes(report.totalBytes)}`;
  const limit = `the ${formatBytes(report.limitBytes)} limit`;
  if (report.totalBytes <= report.limitBytes) return [`${total}, within ${limit}`];
  const lines = report.entries.map((entry) => {
    const why = entry.why === undefined ? '' : `  ${entry.why}`;
    const written = `  written ${entry.writtenAt.slice(0, 19).replace('T', ' ')}`;
    return `${LABELS[entry.action].padEnd(12)}  cache ${entry.tool.padEnd(6)}  ${formatBytes(entry.bytes).padStart(9)}${written}${why}`;
  });
  const gone = report.entries.filter((entry) => entry.action !== 'kept').length;
  const verb = report.dryRun ? 'would reclaim' : 'reclaimed';
  const skipped =
    report.skipped === undefined ? '' : `; ${report.dryRun ? 'now ' : 'nothing removed: '}${report.skipped}`;
  lines.push(
    `${total}, over ${limit}: ${verb} ${formatBytes(report.reclaimedBytes)} from ${gone} tool folder${gone === 1 ? '' : 's'}${skipped}`,
  );
  return lines;
}
