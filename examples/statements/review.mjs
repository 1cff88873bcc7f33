// @ts-check
/**
 * Step 6, review: a person reads the statements that need one before they are sent. Which ones is
 * this step's rule: a statement whose fact-check failed, or one this run changed after it was first
 * drafted (a redraft after a fix) — shown as a diff against the earlier draft, with the chain of
 * outputs that changed it. Every other statement is approved by the rule. In production the sitting
 * takes a person 4 hours, however many statements it holds (the figure), which is what plans
 * count.
 */
import { Narrative, Verdict } from './schemas.mjs';

/** @import { Json, ReviewStep } from '../../src/workflows/define.js' */

/** A person's review sitting: 4 hours (the step 6). */
const SITTING_SECONDS = 4 * 3600;

/**
 * What the reviewer reads of a customer's statement: its text and the fact-check's verdict.
 * @param {string} key
 * @param {Readonly<Record<string, Readonly<Record<string, Json>>>>} inputs
 * @returns {{ statement: string, factCheck: string }}
 */
function statementOf(key, inputs) {
  const verdict = Verdict.parse(inputs['fact-check']?.[key]);
  return {
    statement: Narrative.parse(inputs.narrative?.[key]).text,
    factCheck: verdict.ok ? 'passed' : `FAILED: ${verdict.reason ?? 'no reason given'}`,
  };
}

/** @returns {ReviewStep} */
export function reviewStep() {
  return {
    kind: 'review',
    name: 'review',
    version: '1',
    items: 'source',
    reads: [
      { step: 'narrative', items: 'same' },
      { step: 'fact-check', items: 'same' },
    ],
    show: ({ key, inputs }) => statementOf(key, inputs),
    needsPerson: ({ key, inputs }, { earlier }) =>
      earlier !== undefined || !Verdict.parse(inputs['fact-check']?.[key]).ok,
    concurrency: 1,
    estimate: { secondsPerItem: 0, fixedSeconds: SITTING_SECONDS },
  };
}
