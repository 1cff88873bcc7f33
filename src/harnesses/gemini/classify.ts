/**
 * How a Gemini CLI turn ended, from its exit status, parsed events and stderr tail (reference note
 * §2.5–2.6 and §4, checked against real runs of 0.61.0 on a loopback server). Pure apart from `now`,
 * which only dates a quota's `Please retry in 3600s`. The final `result` line decides; quota
 * exhaustion, a transient rate limit and an overload are kept strictly apart, because only the first
 * one switches harness by default.
 *
 * Gemini sorts every 429 (and 499/503) itself into a `TerminalQuotaError` (never retried: a daily
 * quota, a free tier of `limit: 0`, no model capacity, a retry delay over 300 s) or a
 * `RetryableQuotaError` (retried up to `general.maxAttempts`). The result line names neither, so its
 * verdict is read from stderr, from the line reporting the error that ended the turn. Google's
 * per-minute 429 reads `You exceeded your current quota…` exactly like the `limit: 0` one, so that
 * sentence alone decides nothing.
 */
import type { Classification, ClassifyInput } from '../adapter.js';
import { classifyWithoutResult, describeExit, lastEvent, lastLine } from '../ending.js';

/**
 * Quota wording of a terminal 429: Gemini's rewrite of a daily quota; a free tier without this model
 * (Gemini's own `limit: 0` test); no model capacity (`No capacity available for model …` with
 * ErrorInfo `MODEL_CAPACITY_EXHAUSTED`, and Gemini's capacity regex).
 */
const QUOTA = [
  /You have exhausted your daily quota/,
  /limit:\s*0(?!\d|\.\d)/,
  /No capacity available|MODEL_CAPACITY_EXHAUSTED|MODEL_CAPACITY_EXCEEDED|exhausted your capacity|capacity exceeded/i,
];

/** The longest wait Gemini still retries (its MAX_RETRYABLE_DELAY_SECONDS); a longer one is a quota. */
const MAX_RETRYABLE_DELAY_S = 300;

/** A retry delay in an API message: `Please retry in 41.5s.` (Google) or `Suggested retry after 2s.` (Gemini). */
const RETRY_DELAY = /(?:Please retry in|Suggested retry after) ([\d.]+)(ms|s)\b/g;

/**
 * The stderr line reporting the error that ended the turn, e.g. `Error when talking to Gemini API
 * Full report available at: <tmp>/gemini-client-error-….json TerminalQuotaError: You have exhausted
 * your daily quota on this model.` Side calls report theirs differently: the auto router's classifier
 * logged `Error generating content via API. … TerminalQuotaError: …` in a run that then completed.
 */
const TURN_API_ERROR = 'Error when talking to Gemini API';

/** That report when its error is one of Gemini's two quota classes; group 1 names the class. */
export const FINAL_API_ERROR = /Error when talking to Gemini API\b.*?\b(TerminalQuotaError|RetryableQuotaError)\b/;

/**
 * Authentication failed: `Invalid auth method selected.` (exit 41), `When using Gemini API, you must
 * specify the GEMINI_API_KEY environment variable.` (exit 41), and the Google API's answers to a bad
 * key (`API key not valid…`, API_KEY_INVALID, 400) or caller (PERMISSION_DENIED, UNAUTHENTICATED).
 */
const AUTH =
  /Invalid auth method selected|must specify the GEMINI_API_KEY|API key not valid|API_KEY_INVALID|PERMISSION_DENIED|UNAUTHENTICATED/;

/** Overloaded, when no HTTP status is known: `The model is overloaded. Please try again later.` (503). */
const OVERLOADED = /overloaded|\bUNAVAILABLE\b|"code":\s*5\d\d\b/i;

/** A transient rate limit, when no HTTP status is known. */
const RATE_LIMITED = /Suggested retry after|Resource has been exhausted|RESOURCE_EXHAUSTED|Max attempts reached/;

/**
 * yargs' usage errors, printed above the help text with exit 1 before anything starts: a bad extra
 * argument (`Unknown arguments: bogus-flag, bogusFlag`) or a prompt yargs took for an option
 * (`Not enough arguments following: p`; observed). Deterministic: `failed`.
 */
const USAGE_ERRORS = [
  /^Unknown arguments?: /,
  /^Not enough arguments following: /,
  /^Invalid values?:/,
  /^Missing required argument/,
];

/** FatalAuthenticationError's exit code (note §2.5). */
const EXIT_AUTH = 41;

/**
 * Gemini's other fatal exit codes, printed to stderr only when they strike before the stream starts:
 * input (42, e.g. `Error resuming session: No previous sessions found for this project.`), sandbox
 * (44), config (52), turn limit (53), tool (54), untrusted folder (55). Deterministic: `failed`.
 */
const EXIT_FATAL: ReadonlySet<number> = new Set([42, 44, 52, 53, 54, 55]);

/**
 * The HTTP status of an API error from the exit code: Gemini exits with `status & 0xff` (429 → 173,
 * 500 → 244, 503 → 247, 400 → 144, 403 → 147; observed). Codes 144–255 are read as 400–511, which a
 * run that printed its result line cannot mean otherwise (a signal ends it without one).
 */
export function apiStatusOf(exitCode: number | null): number | undefined {
  return exitCode !== null && exitCode >= 144 && exitCode <= 255 ? exitCode + 256 : undefined;
}

/** The longest retry delay an API message names, in seconds; undefined when it names none. */
export function retryDelaySeconds(message: string): number | undefined {
  let longest: number | undefined;
  for (const [, value, unit] of message.matchAll(RETRY_DELAY)) {
    const seconds = Number(value) / (unit === 'ms' ? 1000 : 1);
    if (Number.isFinite(seconds) && (longest === undefined || seconds > longest)) longest = seconds;
  }
  return longest;
}

/**
 * Reads a terminal quota out of an API error message: undefined when the message is not one,
 * otherwise the classification, with `resetsAt` = `now` + the retry delay when that delay is what
 * made it terminal (Gemini gives no reset time for a daily quota).
 */
export function quotaOf(message: string, now: number, terminal = false): Classification | undefined {
  const delay = retryDelaySeconds(message);
  const longWait = delay !== undefined && delay > MAX_RETRYABLE_DELAY_S;
  if (!terminal && !longWait && !QUOTA.some((pattern) => pattern.test(message))) return undefined;
  return {
    outcome: 'quota_exhausted',
    message,
    ...(longWait && { resetsAt: new Date(now + delay * 1000).toISOString() }),
  };
}

/** Which quota error class ended the turn, as stderr's last report of a turn's API error named it. */
function verdictOf(stderrTail: string): string | undefined {
  const reports = stderrTail.split('\n').filter((line) => line.includes(TURN_API_ERROR));
  return reports.at(-1)?.match(FINAL_API_ERROR)?.[1];
}

function classifyError(message: string, input: ClassifyInput, now: number): Classification {
  const said = { message };
  const status = apiStatusOf(input.exitCode);
  const verdict = verdictOf(input.stderrTail);
  const quota = quotaOf(message, now, verdict === 'TerminalQuotaError');
  if (quota !== undefined) return quota;
  if (status === 401 || status === 403 || input.exitCode === EXIT_AUTH || AUTH.test(message)) {
    return { outcome: 'auth_failed', ...said };
  }
  // Any 5xx is the provider's side failing, already retried by Gemini. A 503 is reported as a
  // RetryableQuotaError too, so the status decides before the verdict.
  if (status !== undefined ? status >= 500 : OVERLOADED.test(message)) return { outcome: 'overloaded', ...said };
  if (status === 429 || status === 499 || verdict === 'RetryableQuotaError' || RATE_LIMITED.test(message)) {
    return { outcome: 'rate_limited', ...said };
  }
  // 400s other than a bad key, 404 model not found, a fatal tool error, a turn limit, an invalid stream…
  return { outcome: 'failed', ...said };
}

/** Classifies a turn without a result line: Gemini's fatal exits first, then the shared rules. */
function classifyWithoutGeminiResult(input: ClassifyInput): Classification {
  const lines = input.stderrTail.split('\n').map((line) => line.trim());
  if (input.exitCode === EXIT_AUTH) {
    const message = lines.find((line) => AUTH.test(line)) ?? lastLine(input.stderrTail);
    return { outcome: 'auth_failed', ...(message !== undefined && { message }) };
  }
  if (input.exitCode !== null && EXIT_FATAL.has(input.exitCode)) {
    const message = lastLine(input.stderrTail) ?? describeExit(input.exitCode, input.signal);
    return { outcome: 'failed', message };
  }
  // A run ended by SIGTERM exits 0 without a result (note §2.8): crashed, unless the engine did it.
  return classifyWithoutResult(input, USAGE_ERRORS);
}

/** Classifies one Gemini CLI turn; `now` (epoch ms) dates a quota's long retry delay. */
export function classifyGemini(input: ClassifyInput, now: number = Date.now()): Classification {
  const result = lastEvent(input.events, 'result');
  if (result === undefined) return classifyWithoutGeminiResult(input);
  if (!result.ok) {
    const message =
      result.message ?? lastEvent(input.events, 'harness.error')?.message ?? 'the turn ended with an error';
    return classifyError(message, input, now);
  }
  if (input.exitCode === 0 && input.signal === null) {
    return { outcome: 'completed', ...(result.message !== undefined && { message: result.message }) };
  }
  return { outcome: 'crashed', message: `${describeExit(input.exitCode, input.signal)} after a successful result` };
}
