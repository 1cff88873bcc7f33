// @ts-check
/**
 * What the stand-in model answers to each statements prompt: pure functions of the prompt's
 * instructions and input, so the same prompt always gets the same answer. They stand for a model's
 * behaviour, mistakes included:
 *
 * - categorise labels a transaction from its memo. It knows the memos `SALE`, `PMT` (purchases),
 *   `REFUND` (refunds), `FEE` and `SVC CHG` (fees); a line it cannot place it takes for a purchase,
 *   the commonest kind. NovaPay's `CR ADJ` (a refund) is such a line unless the instructions explain
 *   it (prompts.mjs `NOVAPAY_REFUNDS`, which categorise v2 adds).
 * - narrative states the customer's purchases, refunds, fees and net spend. Usually it copies them
 *   from the totals it is given; when a refund of $500 or more catches its eye, it reads the raw
 *   transactions instead and works the figures out itself, knowing every memo (a model that sometimes
 *   reads the raw data). Its figures then disagree with totals made from wrong labels.
 * - fact-check finds the four figures in the narrative's text and compares them with the totals.
 */
import { LARGE_REFUND_CENTS } from './data.mjs';
import { NOVAPAY_REFUNDS } from './prompts.mjs';

/** @import { Category, CategoriseInput, FactCheckInput, Labels, Narrative, NarrativeInput, Totals, Verdict } from './schemas.mjs' */

/** @type {Readonly<Record<string, Category>>} */
const KNOWN_MEMOS = { SALE: 'purchase', PMT: 'purchase', REFUND: 'refund', FEE: 'fee', 'SVC CHG': 'fee' };
/** NovaPay's memo for a refund. */
const CREDIT_ADJUSTMENT = 'CR ADJ';

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Categorise: a label per transaction, in order.
 * @param {string} instructions
 * @param {CategoriseInput} input
 * @returns {Labels}
 */
export function categorise(instructions, input) {
  const toldAboutNovaPay = instructions.includes(NOVAPAY_REFUNDS);
  return {
    labels: input.transactions.map((line) => ({
      id: line.id,
      category: KNOWN_MEMOS[line.memo] ?? (toldAboutNovaPay && line.memo === CREDIT_ADJUSTMENT ? 'refund' : 'purchase'),
    })),
  };
}

/**
 * Narrative: the statement's figures in a few sentences, from the totals or the raw transactions.
 * @param {NarrativeInput} input
 * @returns {Narrative}
 */
export function narrative(input) {
  const readsRaw = input.transactions.some(
    (line) => readMemo(line.memo) === 'refund' && line.amount >= LARGE_REFUND_CENTS,
  );
  const figures = readsRaw ? figuresOf(input.transactions) : input.totals;
  const [year, month] = input.month.split('-').map(Number);
  const when = `${MONTH_NAMES[(month ?? 1) - 1]} ${year}`;
  return {
    text:
      `${input.customer}'s card statement for ${when}: ${dollars(figures.purchases)} in purchases, ` +
      `${dollars(figures.refunds)} in refunds and ${dollars(figures.fees)} in fees. Net spend for the month: ${signedDollars(figures.net)}.`,
  };
}

/**
 * Fact-check: whether every figure the narrative states agrees with the totals.
 * @param {FactCheckInput} input
 * @returns {Verdict}
 */
export function factCheck(input) {
  const { narrative: text, totals } = input;
  /** @type {[string, RegExp, number][]} */
  const figures = [
    ['purchases', /(\$[\d,]+\.\d\d) in purchases/, totals.purchases],
    ['refunds', /(\$[\d,]+\.\d\d) in refunds/, totals.refunds],
    ['fees', /(\$[\d,]+\.\d\d) in fees/, totals.fees],
    ['net spend', /Net spend for the month: (-?\$[\d,]+\.\d\d)/, totals.net],
  ];
  const disagreements = [];
  for (const [name, pattern, expected] of figures) {
    const stated = pattern.exec(text)?.[1];
    if (stated === undefined) disagreements.push(`the narrative does not state the ${name}`);
    else if (centsOf(stated) !== expected) {
      disagreements.push(`${name}: the narrative says ${stated}, the totals ${signedDollars(expected)}`);
    }
  }
  return disagreements.length === 0 ? { ok: true } : { ok: false, reason: disagreements.join('; ') };
}

/**
 * A memo as the narrative reads it: it knows NovaPay's credit adjustments.
 * @param {string} memo
 * @returns {Category}
 */
function readMemo(memo) {
  return KNOWN_MEMOS[memo] ?? (memo === CREDIT_ADJUSTMENT ? 'refund' : 'purchase');
}

/**
 * A customer's figures worked out from its raw transactions.
 * @param {readonly { amount: number, memo: string }[]} lines
 * @returns {Totals}
 */
function figuresOf(lines) {
  let purchases = 0;
  let refunds = 0;
  let fees = 0;
  for (const line of lines) {
    const category = readMemo(line.memo);
    if (category === 'purchase') purchases += line.amount;
    else if (category === 'refund') refunds += line.amount;
    else fees += line.amount;
  }
  return { purchases, refunds, fees, net: purchases + fees - refunds, transactions: lines.length };
}

/**
 * Cents as dollars: 1234567 → `$12,345.67`.
 * @param {number} cents a whole number ≥ 0
 */
function dollars(cents) {
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `$${whole}.${String(cents % 100).padStart(2, '0')}`;
}

/** @param {number} cents */
function signedDollars(cents) {
  return cents < 0 ? `-${dollars(-cents)}` : dollars(cents);
}

/**
 * Dollars as the narrative writes them back to cents: `-$12,345.67` → −1234567.
 * @param {string} text
 */
function centsOf(text) {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = '0'] = text.replace(/[-$,]/g, '').split('.');
  const cents = Number(whole) * 100 + Number(fraction);
  return negative ? -cents : cents;
}
