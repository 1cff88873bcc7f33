/**
 * The words an OpenCode turn uses when an account's quota or plan limit is spent, and the reset time
 * they name. Shared by the classifier (the final `error` line) and the stderr watcher (each failed
 * attempt). Pure apart from `now`, which only dates a relative reset time.
 */

/**
 * Quota or plan limit spent, as the provider or OpenCode words it:
 * - OpenAI `insufficient_quota`: `You exceeded your current quota, please check your plan and billing
 *   details. …` (note §4); its Responses-API form `Quota exceeded. Check your plan and billing
 *   details.` (note §3.6), and OpenCode Black's `Subscription quota exceeded. Retry in 3hr 12min.`;
 * - OpenCode's own plan limits: `Free usage exceeded, subscribe to Go` and `<5 hour|weekly|monthly>
 *   usage limit reached. It will reset in 2 hours 5 minutes. …` (note §3.6, OpenCode's retry
 *   message), and the Go gateway's `5-hour usage limit reached. Resets in 3hr 12min. …` (the message
 *   the provider returns, seen on stderr and in the `error` line);
 * - the Zen gateway's balance and spend limits (sent as 401): `Insufficient balance. …`,
 *   `Your workspace has reached its monthly spending limit of $50. …`,
 *   `You have reached your monthly spending limit of $50. …`.
 */
const QUOTA = [
  /exceeded your current quota/i,
  /quota exceeded/i,
  /free usage exceeded/i,
  /usage limit reached/i,
  /^insufficient balance/i,
  /reached (?:its|your) monthly spending limit/i,
];

/** True when `message` says the account's quota or plan limit is spent. */
export function isQuotaMessage(message: string): boolean {
  return QUOTA.some((pattern) => pattern.test(message));
}

/**
 * `reset in 2 hours 5 minutes`, `Resets in 3hr 12min`, `Retry in 1 day`, `reset in less than a
 * minute`: the duration after `in`.
 */
const RESET_IN = /\b(?:resets?|retry) in (less than a minute|(?:\d+\s*[a-z]+[\s,]*)+)/i;
const DURATION_PART = /(\d+)\s*([a-z]+)/gi;
const LESS_THAN_A_MINUTE = 'less than a minute';

/** Seconds per unit, by the unit words OpenCode and its gateway write. */
const UNIT_SECONDS: Readonly<Record<string, number>> = {
  d: 86_400,
  day: 86_400,
  days: 86_400,
  h: 3_600,
  hr: 3_600,
  hrs: 3_600,
  hour: 3_600,
  hours: 3_600,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
};

/**
 * Reads a relative reset time as an ISO instant after `now` (epoch ms); undefined when the message
 * names none or an unknown unit. The words are as precise as OpenCode made them: 1.18.33 writes a
 * Go limit's `retry-after` as days and hours (minutes dropped, so up to an hour early), as hours and
 * minutes or as minutes (minutes rounded up), or as `less than a minute`, read as its bound: a minute.
 */
export function parseResetIn(message: string, now: number): string | undefined {
  const phrase = message.match(RESET_IN)?.[1];
  if (phrase === undefined) return undefined;
  if (phrase.toLowerCase() === LESS_THAN_A_MINUTE) return new Date(now + 60_000).toISOString();
  let seconds = 0;
  for (const [, amount, unit] of phrase.matchAll(DURATION_PART)) {
    const perUnit = UNIT_SECONDS[(unit ?? '').toLowerCase()];
    if (perUnit === undefined) return undefined;
    seconds += Number(amount) * perUnit;
  }
  return new Date(now + seconds * 1000).toISOString();
}
