// @ts-check
/**
 * A deterministic local stand-in for the model the statements steps call, implementing the engine's
 * ModelProvider (`complete({ model, prompt, … }) → { text, inputTokens, outputTokens, durationMs }`).
 * It reads the step's prompt (prompts.mjs), answers as answers.mjs says, and reports for each call
 * the production figures — tokens in and out, and how long the API took — rather than its
 * own, so the history a run leaves plans in production dollars and hours.
 *
 * It can be made to answer "overloaded" (HTTP 529, which the engine retries as transient) to every
 * fact-check call from one customer on: an outage the retries cannot outlast, so the run crashes
 * there, resumable. Each instance keeps a log of the calls it answered, for the tests; it answers
 * calls concurrently and in any order.
 */
import { categorise, factCheck, narrative } from './answers.mjs';
import { readPrompt } from './prompts.mjs';

/** @import { ModelAnswer, ModelProvider, ModelRequest } from '../../src/workflows/define.js' */
/** @typedef {'categorise' | 'narrative' | 'fact-check'} Task */

/**
 * What one call of each step costs in production (the figures). Durations are the wall-clock
 * time of the step over the concurrency of 4: categorise 1,200 calls in 3 h → 3 h × 4 / 1,200 = 36 s;
 * narrative 2,000 in 2 h → 14.4 s; fact-check 2,000 in 2.5 h → 18 s.
 * @type {Readonly<Record<Task, { inputTokens: number, outputTokens: number, durationMs: number }>>}
 */
export const FIGURES = {
  categorise: { inputTokens: 5_000, outputTokens: 1_000, durationMs: 36_000 },
  narrative: { inputTokens: 3_000, outputTokens: 400, durationMs: 14_400 },
  'fact-check': { inputTokens: 4_000, outputTokens: 100, durationMs: 18_000 },
};

/** The API's "overloaded" answer: HTTP 529, which the engine retries as a transient error. */
export class OverloadedError extends Error {
  /** The HTTP status the engine classifies by. */
  status = 529;

  constructor() {
    super('529 overloaded');
    this.name = 'OverloadedError';
  }
}

/** @implements {ModelProvider} */
export class StandInModel {
  /** @type {string | undefined} */
  #overloadedFrom;
  /** @type {Map<Task, string[]>} */
  #calls = new Map();

  /**
   * @param {{ overloadedFrom?: string }} [options] `overloadedFrom`: the first customer whose
   *   fact-check calls are answered "overloaded", it and every later one (by key order).
   */
  constructor(options = {}) {
    this.#overloadedFrom = options.overloadedFrom;
  }

  /**
   * @param {ModelRequest} request
   * @returns {Promise<ModelAnswer>}
   */
  async complete(request) {
    const read = readPrompt(request.prompt);
    let answer;
    let item;
    if (read.task === 'categorise') {
      item = read.input.batch;
      answer = categorise(read.instructions, read.input);
    } else if (read.task === 'narrative') {
      item = read.input.customer;
      answer = narrative(read.input);
    } else {
      item = read.input.customer;
      if (this.#overloadedFrom !== undefined && item >= this.#overloadedFrom) throw new OverloadedError();
      answer = factCheck(read.input);
    }
    const log = this.#calls.get(read.task);
    if (log === undefined) this.#calls.set(read.task, [item]);
    else log.push(item);
    return { text: JSON.stringify(answer), ...FIGURES[read.task] };
  }

  /**
   * The items (batch or customer keys) of the `task` calls this instance answered, in answer order.
   * @param {Task} task
   * @returns {readonly string[]}
   */
  callsOf(task) {
    return this.#calls.get(task) ?? [];
  }
}
