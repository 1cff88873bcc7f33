// @ts-check
/**
 * Step 7, send: each customer's statement is emailed once — keyed per customer and month, performed
 * through HarmFlow's effects ledger, so a crash in the middle of sending, or a rerun after a fix,
 * emails nobody twice. The "mail provider" here is a file: each send appends one JSON line
 * `{key, customer, text}` to the outbox (an append is one write; the provider does NOT dedupe, so
 * only the ledger keeps sends single), and `reconcile` asks it whether a key was sent — what a real
 * provider's "find message by idempotency key" would answer after a crash.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** @import { EffectStep, Json } from '../../src/workflows/define.js' */

/** Where the outbox is: `STATEMENTS_OUTBOX`, else a file in the system's temp folder. */
export function defaultOutbox() {
  return process.env.STATEMENTS_OUTBOX ?? join(tmpdir(), 'harmflow-statements-outbox.jsonl');
}

/** The keys in the outbox, in the order they were sent (a key twice would be a double send). */
export function sentKeys(outbox = defaultOutbox()) {
  if (!existsSync(outbox)) return [];
  return readFileSync(outbox, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => /** @type {{ key: string }} */ (JSON.parse(line)).key);
}

/**
 * The send step: a statement per customer once the review step approved it — by its rule, or by a
 * person, whose approval of a statement that failed its fact-check is the word that sends it anyway.
 * @param {string} outbox
 * @returns {EffectStep}
 */
export function sendStep(outbox) {
  return {
    kind: 'effect',
    name: 'send',
    version: '1',
    items: 'source',
    params: ['month'],
    reads: [
      { step: 'narrative', items: 'same' },
      { step: 'review', items: 'same' },
    ],
    key: ({ key, params }) => `statement:${key}:${String(params.month)}`,
    perform: async ({ key, inputs }, idempotencyKey) => {
      const narrative = /** @type {{ text: string }} */ (inputs.narrative?.[key]);
      appendFileSync(outbox, `${JSON.stringify({ key: idempotencyKey, customer: key, text: narrative.text })}\n`);
      return { messageId: `msg-${idempotencyKey}` };
    },
    reconcile: async (idempotencyKey) =>
      sentKeys(outbox).includes(idempotencyKey) ? { done: { messageId: `msg-${idempotencyKey}` } } : { notDone: true },
    // A mail API takes ~0.2 s a message; 8 at once keep 2,000 statements under a minute.
    concurrency: 8,
    estimate: { secondsPerItem: 0.2 },
  };
}
