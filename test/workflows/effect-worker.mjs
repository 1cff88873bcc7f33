/**
 * One life of the crash test's run (effects-crash.test.ts): performs the effect of every item with
 * performEffect over the SQLite ledger, from the built dist/, until it is killed or has done them all.
 * Run again over the same items, ledger and outbox, it is the resume.
 *
 * The effect is a fake provider that does NOT dedupe: it appends `<key>\n` to the outbox file
 * (O_APPEND), so only the ledger stands between a key and a second line. The reconcile function reads
 * the outbox: a key found there happened; one not found did not, and cannot any more (the killed
 * process is gone).
 *
 * Usage: node effect-worker.mjs LEDGER OUTBOX ITEMS CONCURRENCY. Prints `ready` once the ledger is
 * open, then `send <key>` as each effect starts and `outcome <key> <status> <performed> <reconciled>`
 * as each item ends (but those an earlier life finished), then `finished`.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqliteEffectLedger } from '../../dist/store/sqlite/effect-ledger.js';
import { performEffect } from '../../dist/workflows/effects.js';

const [ledgerFile, outbox, itemsText, concurrencyText] = process.argv.slice(2);
const items = Array.from({ length: Number(itemsText) }, (_, index) => `c-${String(index).padStart(4, '0')}`);
const say = (line) => process.stdout.write(`${line}\n`);

const ledger = openSqliteEffectLedger(ledgerFile);
say('ready');

const effect = async (key) => {
  say(`send ${key}`);
  // A millisecond for the request to reach the provider and one for its answer to come back, so a kill
  // lands as often before the send as between the send and its record.
  await sleep(1);
  appendFileSync(outbox, `${key}\n`);
  await sleep(1);
  return { sent: key };
};

const reconcile = async (key) => {
  const lines = existsSync(outbox) ? readFileSync(outbox, 'utf8').split('\n') : [];
  return lines.includes(key) ? { done: { sent: key, foundInOutbox: true } } : { notDone: true };
};

let next = 0;
const lane = async () => {
  while (next < items.length) {
    const item = items[next++];
    const key = `statement:${item}:2026-10`;
    const outcome = await performEffect({
      ledger,
      key,
      workflow: 'statements',
      run: 'crash-run',
      step: 'send',
      item,
      effect,
      reconcile,
    });
    // An item done in an earlier life says nothing: its line would only pace the kills off the effects.
    if (outcome.status === 'done' && !outcome.performed && outcome.reconciled === undefined) continue;
    say(`outcome ${key} ${outcome.status} ${outcome.performed ?? '-'} ${outcome.reconciled ?? '-'}`);
  }
};
await Promise.all(Array.from({ length: Number(concurrencyText) }, lane));
await ledger.close();
say('finished');
