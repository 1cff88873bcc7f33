/**
 * The statements example's own part of a plan of its fix (bench/workflow-plan.mjs runs this in the
 * same rounds): what any engine that keeps a step's output as JSON must do before the plan can list
 * categorise's items, and what the example's items function does then. It reads the pull step's one
 * stored output (16 MB of JSON, 120,000 transactions) straight from SQLite, parses it, and runs the
 * example's `feedOf` on it (zod over every transaction, then its index by customer) — no HarmFlow
 * module. A plan's time over this process's is HarmFlow's own: its start, its store, fingerprints and
 * the planner.
 *
 *   node bench/workflow-plan-floor.mjs HARMFLOW_HOME      (prints the number of batches it found)
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { batchKeys, feedOf } from '../examples/statements/feed.mjs';

const Database = createRequire(import.meta.url)('better-sqlite3');
const home = process.argv[2];
if (home === undefined) throw new Error('usage: node bench/workflow-plan-floor.mjs HARMFLOW_HOME');
const db = new Database(join(home, 'harmflow.db'), { readonly: true });
const text = db
  .prepare("SELECT output FROM step_outputs WHERE workflow = 'statements' AND step = 'pull'")
  .pluck()
  .get();
if (typeof text !== 'string') throw new Error('the home holds no pull output of the statements example');
process.stdout.write(`${batchKeys(feedOf(JSON.parse(text))).length}\n`);
