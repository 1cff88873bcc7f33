/**
 * Watches a Gemini CLI turn's stderr for the one failure it can call early: a quota Gemini itself
 * judged terminal (`TerminalQuotaError`), reported as the error that ended the turn. Everything else
 * is left to the final classification: transient 429s and 5xx are retried by Gemini, bounded by
 * `general.maxAttempts` (command.ts), and a side call's quota error (the auto router's classifier)
 * does not end the run.
 *
 * The report spans lines: `Error when talking to Gemini API … TerminalQuotaError: <first line>`, the
 * message's further lines (`* Quota exceeded for metric: …, limit: 0, …`, `Please retry in 3600s.`),
 * then indented stack frames. The watcher answers on the first indented or blank line, with the whole
 * message, so the early answer reads the same limit and retry delay the result line would. Measured
 * against the real CLI it answers ~0.1 s before Gemini exits by itself (a terminal quota is never
 * retried); what it guards against is a CLI that goes on after reporting one.
 */
import type { Classification } from '../adapter.js';
import { FINAL_API_ERROR, quotaOf } from './classify.js';

/** Where the message starts on the reporting line. */
const TERMINAL_MESSAGE = /\bTerminalQuotaError: (.*)$/;

/** A line that is no longer the message: a stack frame, an inspected property, a blank line. */
const MESSAGE_END = /^(\s|$)/;

/**
 * Creates a watcher for one turn's stderr lines; `now` (epoch ms) dates a long retry delay. Returns
 * `quota_exhausted` once a terminal quota report is complete, undefined for every other line.
 */
export function createGeminiStderrWatcher(now: () => number = Date.now): (line: string) => Classification | undefined {
  let message: string[] | undefined;
  return (line) => {
    if (message === undefined) {
      const start = FINAL_API_ERROR.exec(line)?.[1] === 'TerminalQuotaError' ? TERMINAL_MESSAGE.exec(line) : null;
      if (start !== null) message = [start[1] ?? ''];
      return undefined;
    }
    if (!MESSAGE_END.test(line)) {
      message.push(line);
      return undefined;
    }
    const text = message.join('\n');
    message = undefined;
    return quotaOf(text, now(), true);
  };
}
