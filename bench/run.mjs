/**
 * Runs every benchmark under bench/ (after `npm run build`) and keeps each one's JSON result in
 * bench/results/<name>.json, the figures BENCHMARKS.md reports.
 *
 *   npm run bench            # all benchmarks
 *   npm run bench -- failover
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = [
  'failover',
  'event-latency',
  'memory',
  'output-rss',
  'workflow',
  'gate',
  'sandbox',
  'cluster-anchors',
  'dispatch',
  'tui',
  'cli-start',
  'demo',
  'workflow-plan',
  'ui-first-frame',
  'shared-cache',
];
const here = fileURLToPath(new URL('.', import.meta.url));
const chosen = process.argv.slice(2).filter((name) => !name.startsWith('-'));
mkdirSync(`${here}results`, { recursive: true });
for (const name of chosen.length > 0 ? chosen : BENCHMARKS) {
  if (!BENCHMARKS.includes(name)) throw new Error(`unknown benchmark ${name} (known: ${BENCHMARKS.join(', ')})`);
  process.stderr.write(`bench: ${name}\n`);
  const run = spawnSync(process.execPath, [`${here}${name}.mjs`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeFileSync(`${here}results/${name}.json`, run.stdout);
  process.stdout.write(run.stdout);
}
