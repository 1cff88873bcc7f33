/**
 * How an OpenCode turn ended, from its exit status, parsed events and stderr tail (reference note
 * §3.3, §3.6, §4, checked against 1.18.33). Pure apart from `now`, which only dates a relative reset
 * time. OpenCode prints no result line on success, so:
 *
 * - an `error` line (the parser's failed `result`) decides, whatever the exit code: 1 in a normal run,
 *   0 with `--attach` (note §3.3);
 * - otherwise exit 0 after the run reported its session is `completed`, also when a permission was
 *   rejected on the way (the run goes on and exits 0), with the last text as its message;
 * - otherwise the process ended without telling how the turn went: `failed` for a command-line
 *   refusal, else `crashed`.
 *
 * Quota exhaustion, a transient rate limit and an overload are kept strictly apart: only the first
 * switches harness by default.
 */
import { stripVTControlCharacters } from 'node:util';
import type { EventData, HarnessEvent } from '../../events/schema.js';
import type { Classification, ClassifyInput } from '../adapter.js';
import { classifyWithoutResult, lastEvent } from '../ending.js';
import { isQuotaMessage, parseResetIn } from './limits.js';
import { logField } from './stderr.js';

/**
 * Authentication failed, when the status is missing: the AI SDK's `Incorrect API key provided: …`
 * (OpenAI 401), OpenCode's `ProviderAuthError` wording, Zen's `Invalid API key.` / `Missing API key.`.
 */
const AUTH = /incorrect api key|invalid api key|missing api key|authentication|unauthorized/i;

/** Overloaded when the status is missing: Anthropic's `Overloaded`, OpenCode's `Provider is overloaded`. */
const OVERLOADED = /overloaded|at capacity|service unavailable/i;

/** A transient rate limit when the status is missing: `Rate limit reached for …`, `Too Many Requests`. */
const RATE_LIMITED = /rate limit|too many requests/i;

/**
 * OpenCode refusing to run, on stderr, exit 1: `Error: Session not found` (`-s` unknown),
 * `Error: You must provide a message or a command`.
 */
const REFUSALS = [/^Error: /];

/**
 * The first line of the usage text yargs prints, alone, for an unknown option or an invalid value
 * (`--format xml`, `--bogus`): exit 1 and no error line.
 */
const USAGE = /^opencode run \[message\.\.\]$/m;

/** OpenCode's message for an exception it did not expect (an unknown model, …): the cause is on stderr. */
const UNEXPECTED = /^Unexpected server error/;

/** A `--print-logs` line below WARN: progress, never why a run ended. */
const PROGRESS_LOG = /^timestamp=\S+ level=(?:DEBUG|INFO) /;

type ResultData = EventData<'result'>;

/**
 * The cause OpenCode logged for an unexpected error:
 * `level=ERROR … message=failed ref=err_… error="ProviderModelNotFoundError: Model not found: mock/nope."`.
 */
function loggedCause(stderr: string): string | undefined {
  const line = stderr
    .split('\n')
    .findLast((text) => logField(text, 'level') === 'ERROR' && logField(text, 'message') === 'failed');
  return line === undefined ? undefined : logField(line, 'error');
}

function classifyError(
  result: ResultData,
  events: readonly HarnessEvent[],
  stderr: string,
  now: number,
): Classification {
  const reported = result.message ?? 'OpenCode reported an error';
  const cause = UNEXPECTED.test(reported) ? loggedCause(stderr) : undefined;
  const said = { message: cause === undefined ? reported : `${reported} (${cause})` };
  const status = result.apiErrorStatus;
  // The parser reports a provider's quota or plan-limit error code as a rejected limit.
  const rejected = lastEvent(events, 'rate_limit', (data) => data.status === 'rejected');
  if (rejected !== undefined || isQuotaMessage(reported)) {
    const resetsAt = rejected?.resetsAt ?? parseResetIn(reported, now);
    return { outcome: 'quota_exhausted', ...said, ...(resetsAt !== undefined && { resetsAt }) };
  }
  // The HTTP status decides when OpenCode gave one; the wording only when it did not.
  if (status !== undefined ? status === 401 || status === 403 : AUTH.test(reported)) {
    return { outcome: 'auth_failed', ...said };
  }
  if (status !== undefined ? status >= 500 : OVERLOADED.test(reported)) return { outcome: 'overloaded', ...said };
  // Any other 429 (`rate_limit_exceeded`, a `retry-after` or `x-ratelimit-*` limit) is transient.
  if (status !== undefined ? status === 429 : RATE_LIMITED.test(reported)) return { outcome: 'rate_limited', ...said };
  return { outcome: 'failed', ...said };
}

/** Classifies one OpenCode turn; `now` (epoch ms) dates a reset time given as a duration. */
export function classifyOpencode(input: ClassifyInput, now: number = Date.now()): Classification {
  // OpenCode colours `Error:` and `! permission requested` on stderr.
  const stderr = stripVTControlCharacters(input.stderrTail);
  const result = lastEvent(input.events, 'result');
  if (result !== undefined && !result.ok) return classifyError(result, input.events, stderr, now);
  const sessionReported = lastEvent(input.events, 'session.started') !== undefined;
  if (input.exitCode === 0 && input.signal === null && sessionReported) {
    const message = lastEvent(input.events, 'message')?.text;
    return { outcome: 'completed', ...(message !== undefined && { message }) };
  }
  if (input.exitCode === 1 && USAGE.test(stderr)) {
    return {
      outcome: 'failed',
      message: 'OpenCode printed its usage: the command line has an unknown option or value',
    };
  }
  const telling = stderr
    .split('\n')
    .filter((line) => !PROGRESS_LOG.test(line))
    .join('\n');
  return classifyWithoutResult({ ...input, stderrTail: telling }, REFUSALS);
}
