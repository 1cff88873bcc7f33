/**
 * What went wrong in one try of a step item, and whether trying again can help. Steps and model
 * providers throw `TransientError` (worth retrying) or `DefectError` (never retried) when they know;
 * `classifyError` sorts everything else — HTTP errors from SDKs, Node network errors, aborts and
 * timeouts, zod validation failures, assertions — into the same two kinds. Pure: the clock used to
 * read a `Retry-After` date is a parameter.
 *
 * Classification walks the error and its `cause` chain, outermost first, and the first link that says
 * something decides: a wrapper that chose `DefectError` wins over the network error inside it, while a
 * plain `TypeError('fetch failed')` is transient when its cause is an `ECONNRESET`. A chain in which no
 * link says anything is a defect: retrying an error nobody recognises spends the run's budget on what
 * is most likely a bug.
 *
 * Providers that wrap an SDK with retries of its own should turn them off (e.g. `maxRetries: 0`), so
 * every retry is counted against the item's limit and the run's budget here.
 */
import { z } from 'zod';

/**
 * What a failed try is known to have spent: the model tokens of a call that answered (an answer that
 * is not JSON or does not match the schema still used them), and how long the call took when its
 * provider says. A provider that knows a failed call's tokens (an error body that reports usage)
 * passes them as `spent` to the error it throws; without them, the try's tokens are unreported
 * (src/workflows/spend.ts counts them as unknown, never as zero).
 */
export interface TrySpent {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationMs?: number;
}

/** A failure worth retrying: overload, rate limit, a 5xx, a dropped connection, a timeout. */
export class TransientError extends Error {
  /** The HTTP status that said so, when there was one. */
  readonly status: number | undefined;
  /** How long the server asked us to wait before trying again, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** What the failed call spent, when its provider reported it. */
  readonly spent: TrySpent | undefined;
  constructor(
    message: string,
    options?: { status?: number; retryAfterMs?: number; cause?: unknown; spent?: TrySpent },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options?.status;
    this.retryAfterMs = options?.retryAfterMs;
    this.spent = options?.spent;
  }
}

/** A failure that will recur on every try: invalid output, a 4xx (other than 408/429), a failed assertion. */
export class DefectError extends Error {
  /** What the failed call spent, when known: a model answer refused by the schema used its tokens. */
  readonly spent: TrySpent | undefined;
  constructor(message: string, options?: { cause?: unknown; spent?: TrySpent }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.spent = options?.spent;
  }
}

const TrySpentShape = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  durationMs: z.number().nonnegative().optional(),
});

/** The `spent` a thrown error carries (TransientError, DefectError, or any error with one of that shape), else undefined. */
export function spentOfError(error: unknown): TrySpent | undefined {
  if (typeof error !== 'object' || error === null || !('spent' in error)) return undefined;
  const parsed = TrySpentShape.safeParse(error.spent);
  if (!parsed.success) return undefined;
  const { inputTokens, outputTokens, durationMs } = parsed.data;
  return { inputTokens, outputTokens, ...(durationMs !== undefined && { durationMs }) };
}

/** One error sorted: its kind, a one-line message, and what the server said about status and waiting. */
export type ClassifiedError = {
  kind: 'transient' | 'defect';
  message: string;
  retryAfterMs?: number;
  status?: number;
};

/**
 * Node and undici error codes for a connection that dropped, was refused or timed out: the network
 * may well be back on the next try. Other undici codes (`UND_ERR_INVALID_ARG`, `UND_ERR_NOT_SUPPORTED`,
 * `UND_ERR_HEADERS_OVERFLOW`, `UND_ERR_DESTROYED`, …) report a misuse or a response that will be the
 * same every time, so they are defects. `ENOTFOUND` is too (a misspelt host); `EAI_AGAIN` is the DNS
 * failure that is temporary.
 */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET_TIMEOUT',
  'UND_ERR_REQUEST_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_ABORTED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** `AbortError`: a request given up (e.g. by a per-request deadline); `TimeoutError`: `AbortSignal.timeout`. */
const TRANSIENT_NAMES: ReadonlySet<string> = new Set(['AbortError', 'TimeoutError']);

/** How far down a `cause` chain to look: real chains are two or three deep; this also stops a cycle. */
const MAX_CAUSE_DEPTH = 6;

/** A non-negative decimal: delay-seconds (RFC 9110 §10.2.3 says integer; SDKs accept fractions too). */
const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * The start of an HTTP date: all three forms of RFC 9110 §5.6.7 open with a day name. `Date.parse`
 * alone would take `-5` for a year.
 */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/;

type Verdict = Pick<ClassifiedError, 'kind' | 'retryAfterMs' | 'status'>;

/**
 * Sorts an error thrown by a try into transient or defect, with a one-line message built from the
 * error and its causes. `now` (ms since the epoch) turns a `Retry-After` HTTP date into a wait.
 */
export function classifyError(error: unknown, now: () => number = Date.now): ClassifiedError {
  const links = causeChain(error);
  let verdict: Verdict = { kind: 'defect' };
  for (const link of links) {
    const found = judge(link, now);
    if (found !== undefined) {
      verdict = found;
      break;
    }
  }
  return { ...verdict, message: links.map(describeLink).join(': ') };
}

/**
 * Reads how long a server asked to wait from its response headers — a `Headers` object or a plain
 * record, any case — in milliseconds: `retry-after-ms` (the model SDKs' header) first, else
 * `retry-after` as delay-seconds or an HTTP date (a date in the past is 0). Undefined when neither is
 * there or readable.
 */
export function parseRetryAfter(headers: unknown, now: number): number | undefined {
  const exact = headerValue(headers, 'retry-after-ms')?.trim();
  if (exact !== undefined && DECIMAL.test(exact)) return Number(exact);
  const text = headerValue(headers, 'retry-after')?.trim();
  if (text === undefined || text === '') return undefined;
  if (DECIMAL.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function judge(link: unknown, now: () => number): Verdict | undefined {
  if (link instanceof TransientError) {
    return {
      kind: 'transient',
      ...(link.status !== undefined && { status: link.status }),
      ...(link.retryAfterMs !== undefined && { retryAfterMs: link.retryAfterMs }),
    };
  }
  if (link instanceof DefectError || link instanceof z.core.$ZodError) return { kind: 'defect' };
  if (typeof link !== 'object' || link === null) return undefined;
  const status = httpStatus(link);
  if (status !== undefined) {
    if (status !== 408 && status !== 429 && status < 500) return { kind: 'defect', status };
    const retryAfterMs = retryAfterOf(link, now);
    return { kind: 'transient', status, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  }
  const { code, name } = link as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return { kind: 'transient' };
  if (typeof name === 'string' && TRANSIENT_NAMES.has(name)) return { kind: 'transient' };
  return undefined;
}

/** The HTTP error status an object carries in `status` or `statusCode`, if it is one (400–599). */
export function httpStatus(link: object): number | undefined {
  const { status, statusCode } = link as { status?: unknown; statusCode?: unknown };
  for (const value of [status, statusCode]) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599) return value;
  }
  return undefined;
}

function retryAfterOf(link: object, now: () => number): number | undefined {
  const { retryAfterMs, headers } = link as { retryAfterMs?: unknown; headers?: unknown };
  if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) return retryAfterMs;
  return headers === undefined ? undefined : parseRetryAfter(headers, now());
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value: unknown = get.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' || typeof first === 'number') return String(first);
  }
  return undefined;
}

function causeChain(error: unknown): unknown[] {
  const links: unknown[] = [error];
  let current = error;
  while (links.length < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null && 'cause' in current) {
    current = current.cause;
    if (current === undefined || links.includes(current)) break;
    links.push(current);
  }
  return links;
}

/** One link's message on one line: a zod error prettified, an HTTP status or code when there is no text. */
function describeLink(link: unknown): string {
  let text: string;
  if (link instanceof z.core.$ZodError) text = `invalid: ${z.prettifyError(link)}`;
  else if (typeof link === 'object' && link !== null) text = describeObject(link);
  else text = String(link);
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function describeObject(link: object): string {
  const { message, code } = link as { message?: unknown; code?: unknown };
  if (typeof message === 'string' && message !== '') return message;
  const status = httpStatus(link);
  if (status !== undefined) return `HTTP ${status}`;
  if (typeof code === 'string') return code;
  if (link instanceof Error) return link.name;
  try {
    return JSON.stringify(link) ?? String(link);
  } catch {
    return String(link);
  }
}
