// @ts-check
/**
 * The statements workflow of issue 5: a month's card statements for 2,000 business customers, in the
 * steps pull, categorise, totals, narrative, fact-check (steps.mjs), review (review.mjs) and send
 * (mailer.mjs), their model steps answered by a deterministic local stand-in (model.mjs). `build`
 * gives what a run needs: the definition, the model providers it names and the prices plans cost its
 * tokens at. Step 6 puts before a person the statements that failed their fact-check or that a fix
 * changed; step 7 emails each approved statement once through the effects ledger. first.mjs and
 * fixed.mjs are the two definitions of the story (README.md).
 */
import { z } from 'zod';
import { customerKeys } from './data.mjs';
import { defaultOutbox, sendStep } from './mailer.mjs';
import { StandInModel } from './model.mjs';
import { reviewStep } from './review.mjs';
import { categoriseStep, factCheckStep, MODEL, narrativeStep, pullStep, totalsStep } from './steps.mjs';

/** @import { ModelProvider, WorkflowDefinition } from '../../src/workflows/define.js' */

/** The month. */
const MONTH = '2026-10';

/** Step 5 crashes at customer 1,412 in the issue: the stand-in is overloaded from there on. */
const OVERLOADED_FROM = 'c-1412';

/** The prices: $3 per million input tokens, $15 per million output tokens. */
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

const Options = z.strictObject({
  categoriseVersion: z.union([z.literal(1), z.literal(2)]),
  overloaded: z.boolean().default(false),
  /** The file the send step's stand-in mail provider appends to (mailer.mjs). */
  outbox: z.string().min(1).optional(),
});

/**
 * What a run of the statements workflow needs.
 * @typedef {{
 *   workflow: WorkflowDefinition,
 *   providers: Record<string, ModelProvider>,
 *   prices: Record<string, { inputPerMTok: number, outputPerMTok: number }>,
 * }} Built
 */

/**
 * The statements workflow with categorise at `categoriseVersion` (1: NovaPay refunds taken for
 * purchases; 2: the fix), its stand-in model overloaded from customer `c-1412` on when `overloaded`.
 * @param {z.input<typeof Options>} options
 * @returns {Built}
 */
export function build(options) {
  const { categoriseVersion, overloaded, outbox } = Options.parse(options);
  return {
    workflow: {
      name: 'statements',
      params: { month: MONTH },
      source: () => customerKeys(),
      steps: [
        pullStep(),
        categoriseStep(categoriseVersion),
        totalsStep(),
        narrativeStep(),
        factCheckStep(),
        reviewStep(),
        sendStep(outbox ?? defaultOutbox()),
      ],
    },
    providers: { [MODEL.provider]: new StandInModel(overloaded ? { overloadedFrom: OVERLOADED_FROM } : {}) },
    prices: { [MODEL.name]: PRICE },
  };
}
