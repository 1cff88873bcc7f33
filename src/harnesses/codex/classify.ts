/**
 * How a Codex turn ended, from its exit status, parsed events and stderr tail (reference note §5,
 * with the messages of §4.4 and codex-rs `core/src/error.rs`). Pure apart from `now`, which with the
 * zone Codex ran in (`ClassifyInput.timeZone`) only dates a usage limit's `try again at 9:31 AM`.
 * `turn.completed` / `turn.failed` decide; top-level `error` lines and `error` items alone never end a run (note §4.3). Quota
 * exhaustion, a transient rate limit and an overload are kept strictly apart: only the first switches
 * harness by default.
 */
import type { Classification, ClassifyInput } from '../adapter.js';
import { classifyWithoutResult, describeExit, lastEvent } from '../ending.js';
import { resetInstant } from '../wall-time.js';

/**
 * Quota or plan limit exhausted: `Quota exceeded. Check your plan and billing details.`
 * (insufficient_quota); `You’ve hit your usage limit…` (U+2019 or straight, every plan's wording and
 * `…usage limit for <model>`); `To use Codex with your ChatGPT plan, upgrade to Plus…`
 * (usage_not_included); `Usage limit reached…`; the workspace credit strings (§4.4).
 */
const QUOTA = [
  /Quota exceeded/i,
  /You.ve hit your usage limit/,
  /upgrade to Plus/i,
  /^Usage limit reached/,
  /workspace credit limit/i,
  /workspace is out of credits/i,
];

/**
 * Authentication failed. Reconstructed, not captured (the note has no Codex 401 run): a non-retried
 * HTTP error reads `unexpected status 401 Unauthorized: <body>` and an exhausted retry
 * `exceeded retry limit, last status: 401 Unauthorized` (the Display impls of `UnexpectedResponseError`
 * and `RetryLimitReachedError` in codex-rs error.rs); a missing key is
 * ``Missing environment variable: `OPENAI_API_KEY`.``; ChatGPT logins fail with a refresh-token message.
 */
const AUTH =
  /\b(unexpected status|last status:) 40[13]\b|Missing environment variable: `\w*(KEY|TOKEN)\w*`|refresh token|(log|sign) in again/i;

/**
 * Overloaded or failing on the provider's side: `Selected model is at capacity. Please try a different
 * model.` (503, server_is_overloaded) and `We’re currently experiencing high demand, which may cause
 * temporary errors.` (500). The note files the 500 under "Overloaded" in §5: both are the provider
 * failing transiently, not this account's limit, so both are `overloaded`; so is any other 5xx.
 */
const OVERLOADED = /at capacity|high demand|overloaded|\b(unexpected status|last status:) 5\d\d\b/i;

/** A transient rate limit: `exceeded retry limit, last status: 429 …` or `rate limit exceeded: …`. */
const RATE_LIMITED = /last status: 429\b|unexpected status 429\b|rate limit exceeded|Too Many Requests/i;

/**
 * `try again at 9:31 AM` (the reset is on the day the message was written, in Codex's zone) or `try
 * again at Nov 30th, 2026 9:31 AM` (another day), the two forms codex-rs `format_retry_timestamp`
 * writes in its process's local time zone, seconds cut. `Try again at` starts the sentence on some plans.
 */
const TRY_AGAIN_AT = /try again at (?:([A-Za-z]{3}) (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2}) ?([AP]M)/i;

/**
 * Reads the reset time out of a usage-limit message, as ISO 8601, taking its wall time in the IANA
 * zone `timeZone`: the one the Codex process ran in (its `TZ`), where it wrote the message. A bare
 * time is the first such wall time in that zone whose minute has not passed at `now` (epoch ms):
 * today there, as Codex meant it (the seconds it cut may still be ahead), or tomorrow when the minute
 * is over, the text then being older than `now`. A dated time is that instant in the zone (the earlier
 * one where a DST change repeats it). Undefined when the message names none, an impossible date or
 * time (`Feb 30th`, `13:75 PM`), or a zone this runtime does not know.
 */
export function parseTryAgainAt(message: string, now: number, timeZone: string): string | undefined {
  const match = message.match(TRY_AGAIN_AT);
  if (match === null) return undefined;
  const [, monthName, day, year, hour12 = '', minute = '', meridiem = ''] = match;
  return resetInstant({ monthName, day, year, hour12, minute, meridiem }, timeZone, now);
}

function classifyFailure(message: string, now: number, timeZone: string): Classification {
  const said = { message };
  if (QUOTA.some((pattern) => pattern.test(message))) {
    const resetsAt = parseTryAgainAt(message, now, timeZone);
    return { outcome: 'quota_exhausted', ...said, ...(resetsAt !== undefined && { resetsAt }) };
  }
  if (AUTH.test(message)) return { outcome: 'auth_failed', ...said };
  if (OVERLOADED.test(message)) return { outcome: 'overloaded', ...said };
  if (RATE_LIMITED.test(message)) return { outcome: 'rate_limited', ...said };
  return { outcome: 'failed', ...said };
}

/** Classifies one Codex turn; `now` (epoch ms) dates a usage limit's bare reset time, in `input.timeZone`. */
export function classifyCodex(input: ClassifyInput, now: number = Date.now()): Classification {
  const result = lastEvent(input.events, 'result');
  if (result === undefined) return classifyWithoutResult(input, []);
  if (!result.ok) {
    const message = result.message ?? lastEvent(input.events, 'harness.error')?.message ?? 'turn failed';
    return classifyFailure(message, now, input.timeZone);
  }
  if (input.exitCode === 0 && input.signal === null) {
    return { outcome: 'completed', ...(result.message !== undefined && { message: result.message }) };
  }
  return { outcome: 'crashed', message: `${describeExit(input.exitCode, input.signal)} after turn.completed` };
}
