// @ts-check
/**
 * The statements example's data: one month of card transactions of 2,000 business customers,
 * generated deterministically (seeded by the month, see prng.mjs), with each transaction's true kind
 * (`purchase`, `refund`, `fee`) beside it for the tests. The pull step (feed.mjs) hands the steps the
 * transactions without their kind: the categorise step has to work it out from the memo.
 *
 * How the data makes the arithmetic come out, whatever the month:
 * - Customers `c-0001` … `c-2000`, 60 transactions each: 120,000. Each has one monthly fee, and
 *   purchases and a few refunds on Visa, Mastercard, Amex and NovaPay cards.
 * - NovaPay writes its own memos; a refund is `CR ADJ` (a credit adjustment) where the other networks
 *   write `REFUND`. The categorise prompt v1 does not say so and the model takes those lines for
 *   purchases; v2 says it (prompts.mjs).
 * - Every 10th customer (`c-0010`, `c-0020`, … `c-2000`: 200, spread evenly) has 3 NovaPay refunds;
 *   no other customer has any. So the fix changes the totals of exactly these 200 customers: 141 of
 *   them are among `c-0001` … `c-1411`, which the first run fact-checks before it crashes at `c-1412`,
 *   and 59 after it.
 * - Of those 200, in order, the k-th (k = 0 … 199) has one large NovaPay refund (≥ $500; the other two
 *   under $100) when ⌊(k+1)·37/141⌋ > ⌊k·37/141⌋: 37 spread evenly over the first 141 (all at or
 *   before `c-1410`) and 15 over the other 59. The others' NovaPay refunds are all under $100, and no
 *   refund of another network reaches $500. The narrative stand-in reads a customer's raw
 *   transactions when it sees a refund of $500 or more, else it takes the totals it is given
 *   (answers.mjs); so exactly the large ones' narratives disagree with the v1 totals: 37 mismatches
 *   among the 1,411 customers checked.
 * - The 589 customers after `c-1411` hold 59 of the 200: 530 are neither changed by the fix nor checked
 *   by the first run; the resumed run fact-checks 200 + 530 = 730.
 * - The feed is in time order (each transaction at a uniform second of the month), and the categorise
 *   step labels it in batches of 100 consecutive transactions (feed.mjs): a batch holds ≈100 different
 *   customers, a customer's 60 transactions fall in ≈59 batches. The 600 NovaPay refunds land in
 *   ≈470 of the 1,200 batches (1 − e^(−1/2) ≈ 39%), so under v2 every customer reads at least one
 *   changed batch (one reading none has a probability ≈ 0.61^59 ≈ 10⁻¹³; the test checks it): all
 *   2,000 totals are computed again, and 1,800 come out the same (early cutoff).
 */
import { z } from 'zod';
import { Random } from './prng.mjs';

/** The 2,000 business customers. */
export const CUSTOMER_COUNT = 2000;
/** 60 a customer: the 120,000 transactions a month. */
export const TRANSACTIONS_PER_CUSTOMER = 60;
/** The card network whose refunds categorise v1 takes for purchases. */
export const NOVAPAY = 'NovaPay';
/** Every 10th customer has NovaPay refunds: 200 of 2,000, spread evenly over the range. */
const NOVAPAY_REFUND_EVERY = 10;
/**
 * 3 NovaPay refunds each of those 200: 600 spread over ≈470 of the 1,200 batches, enough for every
 * customer to read a changed batch (see above); one would leave ≈70% of batches unchanged and some
 * customers' totals cached under v2.
 */
const NOVAPAY_REFUNDS_EACH = 3;
/**
 * $500: a refund at least this large makes the narrative stand-in read the raw transactions
 * (answers.mjs); only the chosen customers' NovaPay refunds reach it.
 */
export const LARGE_REFUND_CENTS = 50_000;
/** 37 large ones among the first 141 NovaPay-refund customers: the 37 mismatches. */
const LARGE = { among: 141, count: 37 };
/** Small NovaPay refunds: $5.00 … $99.99, under LARGE_REFUND_CENTS. */
const SMALL_REFUND = { min: 500, max: 9_999 };
/** Large NovaPay refunds: $500 … $4,000. */
const LARGE_REFUND = { min: LARGE_REFUND_CENTS, max: 400_000 };
/** Refunds on the other networks: $5 … $300, never large. */
const OTHER_REFUND = { min: 500, max: 30_000 };
/** 3% of a customer's other transactions are refunds (on Visa, Mastercard or Amex). */
const OTHER_REFUND_SHARE = 0.03;
/** Purchases: $5 … $5,000, skewed towards small ones (the cube of a uniform draw; median ≈ $629). */
const PURCHASE = { min: 500, span: 499_500 };
/** The monthly card fee: $25. */
const MONTHLY_FEE_CENTS = 2_500;

/** @typedef {'purchase' | 'refund' | 'fee'} Kind */

/**
 * One card transaction, with its true kind. `amount` is in cents, always positive: the kind says
 * which way the money went.
 * @typedef {{
 *   id: string,
 *   customer: string,
 *   date: string,
 *   amount: number,
 *   merchant: string,
 *   network: string,
 *   memo: string,
 *   kind: Kind,
 * }} Transaction
 */

/** @type {Readonly<Record<string, Readonly<Record<Kind, string>>>>} */
const MEMOS = {
  Visa: { purchase: 'SALE', refund: 'REFUND', fee: 'FEE' },
  Mastercard: { purchase: 'SALE', refund: 'REFUND', fee: 'FEE' },
  Amex: { purchase: 'SALE', refund: 'REFUND', fee: 'FEE' },
  [NOVAPAY]: { purchase: 'PMT', refund: 'CR ADJ', fee: 'SVC CHG' },
};

/** The networks other than NovaPay. */
const OTHER_NETWORKS = ['Visa', 'Mastercard', 'Amex'];
/** Purchases by network: Visa 40%, Mastercard 30%, Amex 15%, NovaPay 15%. */
const PURCHASE_NETWORKS = [
  ...Array(8).fill('Visa'),
  ...Array(6).fill('Mastercard'),
  ...Array(3).fill('Amex'),
  ...Array(3).fill(NOVAPAY),
];
const MERCHANTS = [
  'Acme Office Supply',
  'Bluebird Logistics',
  'Cedar Print Works',
  'Delta Fuel',
  'Evergreen Catering',
  'Foundry Hardware',
  'Granite Cloud Hosting',
  'Harbor Freight Lines',
  'Ironwood Tools',
  'Juniper Travel',
  'Keystone Telecom',
  'Lighthouse Software',
  'Maple Courier',
  'Northwind Traders',
  'Orchard Cleaning',
  'Pioneer Parking',
  'Quarry Building Supply',
  'Riverside Hotel',
  'Summit Electric',
  'Tidewater Shipping',
];

/** The run's month, as the `month` parameter carries it. */
export const Month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'a month is YYYY-MM');

const SECONDS_PER_DAY = 86_400;

/**
 * The key of the n-th customer (1-based).
 * @param {number} n
 */
export function customerKey(n) {
  return `c-${String(n).padStart(4, '0')}`;
}

/** The customers, in order: `c-0001` … `c-2000`. */
export function customerKeys() {
  return Array.from({ length: CUSTOMER_COUNT }, (_, index) => customerKey(index + 1));
}

/**
 * Whether the k-th NovaPay-refund customer (0-based) gets a large refund: the steps of
 * ⌊(k+1)·37/141⌋, 37 spread evenly over the first 141.
 * @param {number} k
 */
function hasLargeRefund(k) {
  return Math.floor(((k + 1) * LARGE.count) / LARGE.among) > Math.floor((k * LARGE.count) / LARGE.among);
}

/**
 * A purchase amount in cents: the cube of a uniform draw spread over PURCHASE (multiplied out, which
 * is exact IEEE arithmetic everywhere, where `**` need not be).
 * @param {Random} random
 */
function purchaseAmount(random) {
  const draw = random.next();
  return PURCHASE.min + Math.floor(draw * draw * draw * PURCHASE.span);
}

/**
 * The month's 120,000 transactions, in feed order (by time), each with its true kind. The same month
 * gives the same transactions, byte for byte.
 * @param {string} month `YYYY-MM`
 * @returns {Transaction[]}
 */
export function generateMonth(month) {
  const valid = Month.parse(month);
  const [year = 0, monthNumber = 0] = valid.split('-').map(Number);
  const days = new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
  const random = new Random(`statements:${valid}`);
  /** @type {{ second: number, order: number, row: Omit<Transaction, 'id' | 'date'> }[]} */
  const drafts = [];
  /**
   * @param {string} customer
   * @param {Kind} kind
   * @param {string} network
   * @param {string} merchant
   * @param {number} amount
   */
  const add = (customer, kind, network, merchant, amount) => {
    const memo = /** @type {Readonly<Record<Kind, string>>} */ (MEMOS[network])[kind];
    const second = random.int(0, days * SECONDS_PER_DAY - 1);
    drafts.push({ second, order: drafts.length, row: { customer, amount, merchant, network, memo, kind } });
  };
  for (let n = 1; n <= CUSTOMER_COUNT; n += 1) {
    const customer = customerKey(n);
    add(customer, 'fee', random.pick(OTHER_NETWORKS), 'Card services', MONTHLY_FEE_CENTS);
    let count = 1;
    if (n % NOVAPAY_REFUND_EVERY === 0) {
      const large = hasLargeRefund(n / NOVAPAY_REFUND_EVERY - 1);
      for (let refund = 0; refund < NOVAPAY_REFUNDS_EACH; refund += 1) {
        const range = large && refund === 0 ? LARGE_REFUND : SMALL_REFUND;
        add(customer, 'refund', NOVAPAY, random.pick(MERCHANTS), random.int(range.min, range.max));
      }
      count += NOVAPAY_REFUNDS_EACH;
    }
    for (; count < TRANSACTIONS_PER_CUSTOMER; count += 1) {
      const merchant = random.pick(MERCHANTS);
      if (random.next() < OTHER_REFUND_SHARE) {
        add(customer, 'refund', random.pick(OTHER_NETWORKS), merchant, random.int(OTHER_REFUND.min, OTHER_REFUND.max));
      } else {
        add(customer, 'purchase', random.pick(PURCHASE_NETWORKS), merchant, purchaseAmount(random));
      }
    }
  }
  drafts.sort((a, b) => a.second - b.second || a.order - b.order);
  return drafts.map(({ second, row }, index) => ({
    id: `t-${String(index + 1).padStart(6, '0')}`,
    date: `${valid}-${String(Math.floor(second / SECONDS_PER_DAY) + 1).padStart(2, '0')}`,
    ...row,
  }));
}
