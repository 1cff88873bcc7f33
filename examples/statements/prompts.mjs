// @ts-check
/**
 * The prompts of the three model steps, and how to read one back. A prompt is the step's
 * instructions, then its input as JSON between `<input>` and `</input>`. The workflow (steps.mjs)
 * writes them; the stand-in model (model.mjs) reads them, as a model reads instructions and data.
 * A prompt's text is part of what its step's version stands for: change one, bump the other.
 */
import { CategoriseInput, FactCheckInput, NarrativeInput } from './schemas.mjs';

/** What categorise v2 adds, and the stand-in looks for: without it, NovaPay refunds pass for purchases. */
export const NOVAPAY_REFUNDS =
  'Refunds from every card network, including NovaPay, are refunds: NovaPay writes a refund as "CR ADJ" (a credit adjustment).';

const CATEGORISE =
  'Label each card transaction below as a purchase, a refund or a fee, from its memo, merchant and network. ' +
  'Answer with JSON only: {"labels": [{"id": "<transaction id>", "category": "purchase" | "refund" | "fee"}]}, ' +
  'one label per transaction, in their order.';

/** Each step's instructions; a prompt is recognised by the ones it starts with. */
export const INSTRUCTIONS = {
  /** Categorise's, by version of the step: v2 is the fix. */
  categorise: { 1: CATEGORISE, 2: `${CATEGORISE}\n${NOVAPAY_REFUNDS}` },
  narrative:
    "Write a short narrative for this business customer's monthly card statement: what they spent on purchases, " +
    'got back in refunds and paid in fees, and their net spend. Answer with JSON only: {"text": "<narrative>"}.',
  'fact-check':
    "Check every figure the statement narrative below states against the customer's totals (in cents). " +
    'Answer with JSON only: {"ok": true} when they all agree, else {"ok": false, "reason": "<what disagrees>"}.',
};

const OPEN = '\n\n<input>\n';
const CLOSE = '\n</input>\n';

/**
 * A prompt: the instructions, then the input as JSON.
 * @param {string} instructions
 * @param {unknown} input
 */
export function promptOf(instructions, input) {
  return `${instructions}${OPEN}${JSON.stringify(input)}${CLOSE}`;
}

/**
 * A prompt read back: which step wrote it, its instructions, and its input, checked.
 * @typedef {{ task: 'categorise', instructions: string, input: import('./schemas.mjs').CategoriseInput }
 *   | { task: 'narrative', instructions: string, input: import('./schemas.mjs').NarrativeInput }
 *   | { task: 'fact-check', instructions: string, input: import('./schemas.mjs').FactCheckInput }} ReadPrompt
 */

/**
 * Reads a prompt `promptOf` wrote; throws for any other text.
 * @param {string} prompt
 * @returns {ReadPrompt}
 */
export function readPrompt(prompt) {
  const open = prompt.indexOf(OPEN);
  if (open < 0 || !prompt.endsWith(CLOSE)) throw new Error('the prompt has no <input> block');
  const instructions = prompt.slice(0, open);
  const input = JSON.parse(prompt.slice(open + OPEN.length, prompt.length - CLOSE.length));
  if (instructions.startsWith(CATEGORISE)) {
    return { task: 'categorise', instructions, input: CategoriseInput.parse(input) };
  }
  if (instructions.startsWith(INSTRUCTIONS.narrative)) {
    return { task: 'narrative', instructions, input: NarrativeInput.parse(input) };
  }
  if (instructions.startsWith(INSTRUCTIONS['fact-check'])) {
    return { task: 'fact-check', instructions, input: FactCheckInput.parse(input) };
  }
  throw new Error(`a prompt of no statements step: ${instructions.slice(0, 60)}…`);
}
