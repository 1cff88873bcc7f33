// @ts-check
/**
 * The feed as the steps see it. `pullFeed` is the pull step's output: the month's transactions in
 * time order, without their true kind (data.mjs). `feedOf` checks such an output once and indexes it
 * for the later steps: the categorise batches (100 consecutive transactions each, keys `b-0001` …)
 * and where each customer's transactions are. Indexes are kept per output object (a WeakMap): within a
 * run every step item is handed the same pull output object, so each index is built once a run.
 */
import { z } from 'zod';
import { generateMonth } from './data.mjs';

/** 100 transactions a categorise call: the 1,200 calls for 120,000 transactions. */
export const BATCH_SIZE = 100;

/** One line of the feed: a transaction as the bank reports it (amount in cents, always positive). */
export const FeedLine = z.strictObject({
  id: z.string(),
  customer: z.string(),
  date: z.string(),
  amount: z.int().positive(),
  merchant: z.string(),
  network: z.string(),
  memo: z.string(),
});
/** @typedef {z.infer<typeof FeedLine>} FeedLine */

/**
 * A checked feed and its indexes.
 * @typedef {{
 *   lines: readonly FeedLine[],
 *   positions: ReadonlyMap<string, readonly number[]>,
 *   batches: ReadonlyMap<string, readonly string[]>,
 * }} Feed
 */

/** @type {WeakMap<object, Feed>} */
const feeds = new WeakMap();

/**
 * The pull step's output for `month`: its transactions in feed order, without their kind.
 * @param {string} month
 * @returns {FeedLine[]}
 */
export function pullFeed(month) {
  return generateMonth(month).map(({ kind: _kind, ...line }) => line);
}

/**
 * The feed in a pull output, checked and indexed (once per output object).
 * @param {unknown} output
 * @returns {Feed}
 */
export function feedOf(output) {
  if (typeof output !== 'object' || output === null) throw new Error('the pull output is not a list of transactions');
  const known = feeds.get(output);
  if (known !== undefined) return known;
  const lines = z.array(FeedLine).parse(output);
  /** @type {Map<string, number[]>} */
  const positions = new Map();
  /** @type {Map<string, string[]>} */
  const batches = new Map();
  lines.forEach((line, position) => {
    const own = positions.get(line.customer);
    if (own === undefined) positions.set(line.customer, [position]);
    else own.push(position);
    const batch = batchKeyAt(position);
    const held = batches.get(line.customer);
    if (held === undefined) batches.set(line.customer, [batch]);
    else if (held[held.length - 1] !== batch) held.push(batch);
  });
  const feed = { lines, positions, batches };
  feeds.set(output, feed);
  return feed;
}

/**
 * The key of the batch that holds the transaction at `position` in the feed.
 * @param {number} position
 */
export function batchKeyAt(position) {
  return `b-${String(Math.floor(position / BATCH_SIZE) + 1).padStart(4, '0')}`;
}

/**
 * The feed's batch keys, in order: one per 100 transactions.
 * @param {Feed} feed
 */
export function batchKeys(feed) {
  return Array.from({ length: Math.ceil(feed.lines.length / BATCH_SIZE) }, (_, index) =>
    batchKeyAt(index * BATCH_SIZE),
  );
}

/**
 * The transactions of batch `key`.
 * @param {Feed} feed
 * @param {string} key
 */
export function batchLines(feed, key) {
  const start = (Number(key.slice('b-'.length)) - 1) * BATCH_SIZE;
  if (!Number.isInteger(start) || start < 0 || start >= feed.lines.length)
    throw new Error(`no batch ${key} in the feed`);
  return feed.lines.slice(start, start + BATCH_SIZE);
}

/**
 * The feed positions of `customer`'s transactions, in feed order (none for a customer without any).
 * @param {Feed} feed
 * @param {string} customer
 */
export function positionsOf(feed, customer) {
  return feed.positions.get(customer) ?? [];
}

/**
 * `customer`'s transactions, in feed order.
 * @param {Feed} feed
 * @param {string} customer
 */
export function linesOf(feed, customer) {
  return positionsOf(feed, customer).map((position) => /** @type {FeedLine} */ (feed.lines[position]));
}

/**
 * The keys of the batches that hold `customer`'s transactions, in order.
 * @param {Feed} feed
 * @param {string} customer
 */
export function batchesOf(feed, customer) {
  return feed.batches.get(customer) ?? [];
}
