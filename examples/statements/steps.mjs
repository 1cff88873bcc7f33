// @ts-check
/**
 * The statements workflow's steps, one factory each, in the order they run: pull (code), categorise
 * (model), totals (code), narrative (model), fact-check (model). Each declares what it reads — run
 * parameters and upstream outputs — and nothing else, so its fingerprint says when its stored output
 * can be reused; each carries the production estimates, which plans use until the run has
 * measured history. The review (review.mjs) and send (mailer.mjs) steps follow fact-check.
 */
import {
  BATCH_SIZE,
  batchesOf,
  batchKeyAt,
  batchKeys,
  batchLines,
  feedOf,
  linesOf,
  positionsOf,
  pullFeed,
} from './feed.mjs';
import { INSTRUCTIONS, promptOf } from './prompts.mjs';
import { Labels, Narrative, Totals, Verdict } from './schemas.mjs';

/**
 * @import { CodeStep, Json, ModelStep } from '../../src/workflows/define.js'
 * @import { FeedLine } from './feed.mjs'
 * @import { z } from 'zod'
 */

/**
 * The model every model step calls: the stand-in (model.mjs), under this provider and name; temperature
 * 0 so a prompt asked again gets the same answer, as far as a real API allows.
 */
export const MODEL = { provider: 'stand-in', name: 'statements-stand-in', temperature: 0 };

/** The engine's key for a `single` step's one item: the pull step's output is under it. */
const PULL_ITEM = 'all';

/** Calls at once per model step: the concurrency the production hours were measured at. */
const MODEL_CONCURRENCY = 4;

/** @type {WeakMap<object, Labels>} */
const checkedLabels = new WeakMap();

/**
 * A categorise output, checked once per output object (each batch is read by ≈59 customers' totals).
 * @param {Json | undefined} output
 * @param {string} batch
 * @returns {Labels}
 */
function labelsOf(output, batch) {
  if (typeof output !== 'object' || output === null) throw new Error(`totals read no labels for batch ${batch}`);
  const known = checkedLabels.get(output);
  if (known !== undefined) return known;
  const labels = Labels.parse(output);
  checkedLabels.set(output, labels);
  return labels;
}

/**
 * A model step's output schema, as the engine takes it: every schema here describes JSON.
 * @param {z.ZodType} schema
 */
function jsonSchema(schema) {
  return /** @type {z.ZodType<Json>} */ (schema);
}

/**
 * 1. Pull the month's transactions (40 minutes in production).
 * @returns {CodeStep}
 */
export function pullStep() {
  return {
    kind: 'code',
    name: 'pull',
    version: '1',
    items: 'single',
    params: ['month'],
    estimate: { secondsPerItem: 2_400 },
    run: ({ params }) => pullFeed(String(params.month)),
  };
}

/**
 * 2. Categorise the transactions, a batch of 100 per call (1,200 calls; 3 hours). `version` picks the
 * prompt: 1 takes NovaPay refunds for purchases, 2 is the fix.
 * @param {1 | 2} version
 * @returns {ModelStep}
 */
export function categoriseStep(version) {
  const instructions = INSTRUCTIONS.categorise[version];
  return {
    kind: 'model',
    name: 'categorise',
    version: String(version),
    items: (run) => batchKeys(feedOf(run.output('pull', PULL_ITEM))),
    reads: [{ step: 'pull', items: 'all' }],
    model: MODEL,
    prompt: ({ key, inputs }) =>
      promptOf(instructions, { batch: key, transactions: batchLines(feedOf(inputs.pull?.[PULL_ITEM]), key) }),
    output: jsonSchema(Labels),
    concurrency: MODEL_CONCURRENCY,
    // 120,000 transactions in batches of 100: counted by the first plan, before pull has run.
    estimate: { secondsPerItem: 36, inputTokens: 5_000, outputTokens: 1_000, items: 1_200 },
  };
}

/**
 * 3. Each customer's totals from its transactions and their labels (seconds). It reads only the
 * batches that hold the customer's transactions.
 * @returns {CodeStep}
 */
export function totalsStep() {
  return {
    kind: 'code',
    name: 'totals',
    version: '1',
    items: 'source',
    reads: [
      { step: 'pull', items: 'all' },
      { step: 'categorise', items: (customer, run) => batchesOf(feedOf(run.output('pull', PULL_ITEM)), customer) },
    ],
    estimate: { secondsPerItem: 0.01 },
    run: ({ key, inputs }) => {
      const feed = feedOf(inputs.pull?.[PULL_ITEM]);
      const totals = { purchases: 0, refunds: 0, fees: 0, net: 0, transactions: 0 };
      for (const position of positionsOf(feed, key)) {
        const line = /** @type {FeedLine} */ (feed.lines[position]);
        const batch = batchKeyAt(position);
        const label = labelsOf(inputs.categorise?.[batch], batch).labels[position % BATCH_SIZE];
        if (label?.id !== line.id) throw new Error(`batch ${batch} has no label for ${line.id} in its place`);
        if (label.category === 'purchase') totals.purchases += line.amount;
        else if (label.category === 'refund') totals.refunds += line.amount;
        else totals.fees += line.amount;
        totals.transactions += 1;
      }
      totals.net = totals.purchases + totals.fees - totals.refunds;
      return totals;
    },
  };
}

/**
 * 4. Draft each customer's statement narrative from its totals and raw transactions (2 hours).
 * @returns {ModelStep}
 */
export function narrativeStep() {
  return {
    kind: 'model',
    name: 'narrative',
    version: '1',
    items: 'source',
    params: ['month'],
    reads: [
      { step: 'totals', items: 'same' },
      { step: 'pull', items: 'all' },
    ],
    model: MODEL,
    prompt: ({ key, params, inputs }) =>
      promptOf(INSTRUCTIONS.narrative, {
        customer: key,
        month: String(params.month),
        totals: Totals.parse(inputs.totals?.[key]),
        transactions: linesOf(feedOf(inputs.pull?.[PULL_ITEM]), key),
      }),
    output: jsonSchema(Narrative),
    concurrency: MODEL_CONCURRENCY,
    estimate: { secondsPerItem: 14.4, inputTokens: 3_000, outputTokens: 400 },
  };
}

/**
 * 5. Fact-check each narrative against the totals (2.5 hours). A failing verdict is an output (for
 * review), not an error.
 * @returns {ModelStep}
 */
export function factCheckStep() {
  return {
    kind: 'model',
    name: 'fact-check',
    version: '1',
    items: 'source',
    reads: [
      { step: 'narrative', items: 'same' },
      { step: 'totals', items: 'same' },
    ],
    model: MODEL,
    prompt: ({ key, inputs }) =>
      promptOf(INSTRUCTIONS['fact-check'], {
        customer: key,
        narrative: Narrative.parse(inputs.narrative?.[key]).text,
        totals: Totals.parse(inputs.totals?.[key]),
      }),
    output: jsonSchema(Verdict),
    concurrency: MODEL_CONCURRENCY,
    estimate: { secondsPerItem: 18, inputTokens: 4_000, outputTokens: 100 },
  };
}
