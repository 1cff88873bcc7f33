// @ts-check
/**
 * The shapes that cross between the statements steps and the model, as zod schemas: the outputs of
 * categorise, totals, narrative and fact-check, and the JSON input each model prompt carries. The
 * workflow (steps.mjs) checks the model's answers and the upstream outputs it reads against them; the
 * stand-in model (answers.mjs) checks the inputs of the prompts it reads.
 */
import { z } from 'zod';
import { FeedLine } from './feed.mjs';

export const Category = z.enum(['purchase', 'refund', 'fee']);
/** @typedef {z.infer<typeof Category>} Category */

/** Categorise's output for one batch: a label per transaction, in the batch's order. */
export const Labels = z.strictObject({
  labels: z.array(z.strictObject({ id: z.string(), category: Category })),
});
/** @typedef {z.infer<typeof Labels>} Labels */

/** A customer's totals for the month, in cents: `net` is purchases + fees − refunds. */
export const Totals = z.strictObject({
  purchases: z.int().min(0),
  refunds: z.int().min(0),
  fees: z.int().min(0),
  net: z.int(),
  transactions: z.int().min(0),
});
/** @typedef {z.infer<typeof Totals>} Totals */

/** A customer's statement narrative: a few sentences that state its figures. */
export const Narrative = z.strictObject({ text: z.string().min(1) });
/** @typedef {z.infer<typeof Narrative>} Narrative */

/** Fact-check's verdict: a failing one is a result (it goes to review), not an error. */
export const Verdict = z.strictObject({ ok: z.boolean(), reason: z.string().optional() });
/** @typedef {z.infer<typeof Verdict>} Verdict */

/** What a categorise prompt carries: the batch's key and its transactions. */
export const CategoriseInput = z.strictObject({ batch: z.string(), transactions: z.array(FeedLine) });
/** @typedef {z.infer<typeof CategoriseInput>} CategoriseInput */

/** What a narrative prompt carries: the customer's totals and raw transactions. */
export const NarrativeInput = z.strictObject({
  customer: z.string(),
  month: z.string(),
  totals: Totals,
  transactions: z.array(FeedLine),
});
/** @typedef {z.infer<typeof NarrativeInput>} NarrativeInput */

/** What a fact-check prompt carries: the narrative and the totals it must agree with. */
export const FactCheckInput = z.strictObject({ customer: z.string(), narrative: z.string(), totals: Totals });
/** @typedef {z.infer<typeof FactCheckInput>} FactCheckInput */
