/**
 * How a Claude Code turn ended, from its exit status, parsed events and stderr tail (reference note
 * §5, with the strings of §3.5–3.6). Pure apart from `now`, which only dates a limit text's reset.
 * The final `result` line decides; `is_error` and `api_error_status` are what to key off, never
 * `subtype` or `terminal_reason` (note §3.4). Quota exhaustion, a transient rate limit and an
 * overload are kept strictly apart, because only the first one switches harness by default.
 */
import type { EventData, HarnessEvent } from '../../events/schema.js';
import type { Classification, ClassifyInput } from '../adapter.js';
import { classifyWithoutResult, describeExit, lastEvent } from '../ending.js';
import { parseClaudeResetText } from './reset-text.js';

/**
 * Quota or billing exhausted: retrying will not help before a reset or a top-up. From §5 and the
 * limit strings of §3.6: `Credit balance is too low` (400); `You've hit your 5-hour limit · resets …`,
 * `… weekly limit …`, `… monthly spend limit`, `… usage credit limit` (subscription, 429);
 * `Your org is out of usage · …`; `You're out of usage credits…`; `Usage limit reached`. The
 * apostrophe may be straight or U+2019. `Server is temporarily limiting requests (not your usage
 * limit)` must not match: it is a rate limit.
 */
const QUOTA = [
  /credit balance (is )?too low/i,
  /^You['’]ve hit your .*limit/,
  /Your org is out of usage/,
  /^You['’]re out of usage credits/,
  /^Usage limit reached/,
];

/**
 * Authentication failed: `Invalid API key · Fix external API key` (401) and Claude's own auth regex
 * (§3.6), widened to the `OAuth token has expired` wording.
 */
const AUTH =
  /invalid api key|oauth token (has )?(expired|been revoked|revoked)|authentication failed|please run \/login/i;

/** Overloaded: `API Error: 529 Overloaded. This is a server-side issue…` (§3.5). */
const OVERLOADED = /^API Error: 5\d\d\b|overloaded/i;

/** A transient rate limit: `API Error: Request rejected (429) · …` (§3.5) and the server-side limiter string (§3.6). */
const RATE_LIMITED = /^API Error: Request rejected \(429\)|Server is temporarily limiting requests/;

/** Claude refuses bypassPermissions as root without IS_SANDBOX=1: stderr only, exit 1, no JSON (§3.2). */
const REFUSALS = [/cannot be used with root\/sudo privileges/];

type ResultData = EventData<'result'>;
type RateLimitData = EventData<'rate_limit'>;

/** Returns the last rate-limit event that reported a rejected window (a subscription limit), if any. */
function rejectedWindow(events: readonly HarnessEvent[]): RateLimitData | undefined {
  return lastEvent(events, 'rate_limit', (data) => data.status === 'rejected');
}

function classifyError(result: ResultData, events: readonly HarnessEvent[], now: number): Classification {
  const text = result.message ?? lastEvent(events, 'harness.error')?.message ?? 'the turn ended with an error';
  const status = result.apiErrorStatus;
  const rejected = rejectedWindow(events);
  const said = { message: text };
  // A 429 after a `rejected` unified-limit event is a subscription limit even if its wording changes.
  if (QUOTA.some((pattern) => pattern.test(text)) || (status === 429 && rejected !== undefined)) {
    // The event's epoch seconds are exact; the text's `· resets 9:40am (UTC)` only to the minute.
    const resetsAt = rejected?.resetsAt ?? parseClaudeResetText(text, now);
    return { outcome: 'quota_exhausted', ...said, ...(resetsAt !== undefined && { resetsAt }) };
  }
  if (status === 401 || AUTH.test(text)) return { outcome: 'auth_failed', ...said };
  // The HTTP status decides when Claude gave one; the wording only when it did not.
  // Any 5xx is the provider's side failing, retried by Claude already; 529 is the one the note measured.
  if (status !== undefined ? status >= 500 : OVERLOADED.test(text)) return { outcome: 'overloaded', ...said };
  // With retry-after ≥ 60 s Claude fails without retrying (§3.5): this may be a long-window limit,
  // which the engine's backoff, not this classification, deals with.
  if (status !== undefined ? status === 429 : RATE_LIMITED.test(text)) return { outcome: 'rate_limited', ...said };
  // error_max_turns, a 400 other than credit, error_during_execution, …
  return { outcome: 'failed', ...said };
}

/** Classifies one Claude Code turn; `now` (epoch ms) dates a reset the limit text gives as wall time. */
export function classifyClaude(input: ClassifyInput, now: number = Date.now()): Classification {
  const result = lastEvent(input.events, 'result');
  if (result === undefined) return classifyWithoutResult(input, REFUSALS);
  if (!result.ok) return classifyError(result, input.events, now);
  if (input.exitCode === 0 && input.signal === null) {
    return { outcome: 'completed', ...(result.message !== undefined && { message: result.message }) };
  }
  return { outcome: 'crashed', message: `${describeExit(input.exitCode, input.signal)} after a successful result` };
}
