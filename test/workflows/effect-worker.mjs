/**
 * One life of the crash test's run (effects-crash.test.ts): a workflow whose one step is an effect
 * step over ITEMS customers, run by the real engine from the built dist/ — started in the first life,
 * resumed (`resumeRun`) in every later one — over one SQLite database holding the resume store and
 * the effects ledger, until it is killed or has finished.
 *
 * The effect is a fake provider that does NOT dedupe: it appends `<key>\n` to the outbox file
 * (O_APPEND), so only the ledger stands between a key and a second line. The reconcile function reads
 * the outbox: a key found there happened; one not found did not, and cannot any more (the killed
 * process is gone).
 *
 * Usage: node effect-worker.mjs DATABASE OUTBOX ITEMS CONCURRENCY. Prints `ready` once the database
 * is open, `send <key>` as an effect starts and `sent <key>` once it is done, `reconcile <key>
 * done|notDone` when a claim a killed life left is reconciled, then `finished` when the run succeeded.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqliteEffectLedger } from '../../dist/store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../../dist/store/sqlite/resume-store.js';
import { resumeRun, startRun } from '../../dist/workflows/run.js';

const [database, outbox, itemsText, concurrencyText] = process.argv.slice(2);
const items = Array.from({ length: Number(itemsText) }, (_, index) => `c-${String(index).padStart(4, '0')}`);
const say = (line) => process.stdout.write(`${line}\n`);

const store = openSqliteResumeStore(database);
const ledger = openSqliteEffectLedger(database);
say('ready');

const workflow = {
  name: 'crash-send',
  params: { month: '2026-10' },
  source: () => items,
  steps: [
    {
      kind: 'effect',
      name: 'send',
      version: '1',
      items: 'source',
      params: ['month'],
      concurrency: Number(concurrencyText),
      key: ({ key, params }) => `statement:${key}:${params.month}`,
      perform: async (_input, key) => {
        say(`send ${key}`);
        // A millisecond for the request to reach the provider and one for its answer to come back, so
        // a kill lands as often before the send as between the send and its record.
        await sleep(1);
        appendFileSync(outbox, `${key}\n`);
        await sleep(1);
        say(`sent ${key}`);
        return { sent: key };
      },
      reconcile: async (key) => {
        const lines = existsSync(outbox) ? readFileSync(outbox, 'utf8').split('\n') : [];
        const found = lines.includes(key);
        say(`reconcile ${key} ${found ? 'done' : 'notDone'}`);
        return found ? { done: { sent: key, foundInOutbox: true } } : { notDone: true };
      },
    },
  ],
};

const [earlier] = await store.listRuns({ workflow: workflow.name });
const options = { store, ledger, sleep: async () => {} };
const result = earlier ? await resumeRun(workflow, earlier.id, options) : await startRun(workflow, options);
await ledger.close();
await store.close();
say(result.run.state === 'succeeded' ? 'finished' : `ended ${result.run.state}: ${result.run.message ?? ''}`);
