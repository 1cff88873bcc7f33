import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifyError, DefectError, parseRetryAfter, TransientError } from '../../src/workflows/errors.js';

/** A fixed clock: 30 s before the HTTP date used below. */
const RETRY_DATE = 'Wed, 21 Oct 2015 07:28:00 GMT';
const NOW = Date.parse(RETRY_DATE) - 30_000;
const now = () => NOW;

/** An SDK-style HTTP error: an Error with a numeric `status` and the response's headers. */
function httpError(status: number, headers: Record<string, string> | Headers = {}): Error {
  return Object.assign(new Error(`${status} from the API`), { status, headers });
}

function networkError(code: string): Error {
  return Object.assign(new Error(`read ${code}`), { code });
}

function zodError(): z.ZodError {
  const parsed = z.strictObject({ total: z.number() }).safeParse({ total: 'ten' });
  if (parsed.success) throw new Error('the sample should not parse');
  return parsed.error;
}

describe('classifyError', () => {
  const table: [string, unknown, { kind: 'transient' | 'defect'; status?: number; retryAfterMs?: number }][] = [
    [
      '429 with Retry-After in seconds',
      httpError(429, { 'Retry-After': '7' }),
      { kind: 'transient', status: 429, retryAfterMs: 7000 },
    ],
    [
      '429 with Retry-After as an HTTP date (Headers)',
      httpError(429, new Headers({ 'retry-after': RETRY_DATE })),
      { kind: 'transient', status: 429, retryAfterMs: 30_000 },
    ],
    ['529 overloaded', httpError(529), { kind: 'transient', status: 529 }],
    ['503', httpError(503, { 'retry-after': '2' }), { kind: 'transient', status: 503, retryAfterMs: 2000 }],
    ['500', httpError(500), { kind: 'transient', status: 500 }],
    ['408', httpError(408), { kind: 'transient', status: 408 }],
    ['400', httpError(400), { kind: 'defect', status: 400 }],
    ['401', httpError(401), { kind: 'defect', status: 401 }],
    ['404', httpError(404), { kind: 'defect', status: 404 }],
    ['422', httpError(422), { kind: 'defect', status: 422 }],
    ['429 as `statusCode`', { statusCode: 429, message: 'slow down' }, { kind: 'transient', status: 429 }],
    ['403 with a Retry-After (ignored)', httpError(403, { 'retry-after': '5' }), { kind: 'defect', status: 403 }],
    ['ECONNRESET', networkError('ECONNRESET'), { kind: 'transient' }],
    ['ECONNREFUSED', networkError('ECONNREFUSED'), { kind: 'transient' }],
    ['EAI_AGAIN', networkError('EAI_AGAIN'), { kind: 'transient' }],
    ['UND_ERR_CONNECT_TIMEOUT', networkError('UND_ERR_CONNECT_TIMEOUT'), { kind: 'transient' }],
    ['UND_ERR_INVALID_ARG (a misuse)', networkError('UND_ERR_INVALID_ARG'), { kind: 'defect' }],
    ['ENOTFOUND (a misspelt host)', networkError('ENOTFOUND'), { kind: 'defect' }],
    ['AbortError', new DOMException('This operation was aborted', 'AbortError'), { kind: 'transient' }],
    ['TimeoutError', new DOMException('The operation timed out', 'TimeoutError'), { kind: 'transient' }],
    ['ZodError', zodError(), { kind: 'defect' }],
    ['TypeError', new TypeError("Cannot read properties of undefined (reading 'total')"), { kind: 'defect' }],
    ['AssertionError', new AssertionError({ message: 'totals disagree' }), { kind: 'defect' }],
    ['DefectError', new DefectError('narrative names no total'), { kind: 'defect' }],
    [
      'TransientError',
      new TransientError('overloaded', { status: 529, retryAfterMs: 1500 }),
      { kind: 'transient', status: 529, retryAfterMs: 1500 },
    ],
    ['a thrown string', 'boom', { kind: 'defect' }],
    ['an object with a 2xx status (not an HTTP error)', { status: 200, message: 'ok?' }, { kind: 'defect' }],
  ];

  it.each(table)('%s', (_label, error, expected) => {
    const classified = classifyError(error, now);
    expect({ kind: classified.kind, status: classified.status, retryAfterMs: classified.retryAfterMs }).toEqual({
      status: undefined,
      retryAfterMs: undefined,
      ...expected,
    });
    expect(classified.message).not.toMatch(/\n/);
    expect(classified.message.length).toBeGreaterThan(0);
  });

  it('takes a `retryAfterMs` field over the headers', () => {
    const error = Object.assign(httpError(429, { 'retry-after': '9' }), { retryAfterMs: 250 });
    expect(classifyError(error, now).retryAfterMs).toBe(250);
  });

  it('reads the clock only through `now`', () => {
    const later = () => NOW + 20_000;
    expect(classifyError(httpError(429, { 'retry-after': RETRY_DATE }), later).retryAfterMs).toBe(10_000);
  });

  it('finds a transient cause under a generic wrapper, as fetch reports a dropped connection', () => {
    const error = new TypeError('fetch failed', { cause: networkError('ECONNRESET') });
    expect(classifyError(error, now)).toEqual({ kind: 'transient', message: 'fetch failed: read ECONNRESET' });
  });

  it('finds the HTTP status of a wrapped SDK error', () => {
    const error = new Error('categorise failed', { cause: httpError(529, { 'retry-after': '3' }) });
    expect(classifyError(error, now)).toMatchObject({ kind: 'transient', status: 529, retryAfterMs: 3000 });
  });

  it('lets the outermost error that says something decide', () => {
    const wrapped = new DefectError('the provider rejects this prompt', { cause: new TransientError('overloaded') });
    expect(classifyError(wrapped, now)).toEqual({
      kind: 'defect',
      message: 'the provider rejects this prompt: overloaded',
    });
  });

  it('keeps a fetch failure whose cause is not transient a defect', () => {
    const error = new TypeError('fetch failed', { cause: networkError('ENOTFOUND') });
    expect(classifyError(error, now).kind).toBe('defect');
  });

  it('writes a zod error on one line, naming the path', () => {
    const { message } = classifyError(zodError(), now);
    expect(message).toBe('invalid: ✖ Invalid input: expected number, received string → at total');
  });

  it('folds a multi-line message onto one line', () => {
    expect(classifyError(new Error('first line\n  second line'), now).message).toBe('first line second line');
  });

  it('names a bare HTTP status when there is no message', () => {
    expect(classifyError({ status: 503 }, now)).toEqual({ kind: 'transient', status: 503, message: 'HTTP 503' });
  });

  it('stops on a cause cycle', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    Object.assign(first, { cause: second });
    expect(classifyError(first, now)).toEqual({ kind: 'defect', message: 'first: second' });
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds, fractions included', () => {
    expect(parseRetryAfter({ 'retry-after': '120' }, NOW)).toBe(120_000);
    expect(parseRetryAfter({ 'retry-after': '1.5' }, NOW)).toBe(1500);
    expect(parseRetryAfter({ 'retry-after': '0' }, NOW)).toBe(0);
  });

  it('reads an HTTP date against the given clock, a past date as no wait', () => {
    expect(parseRetryAfter({ 'retry-after': RETRY_DATE }, NOW)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after': RETRY_DATE }, NOW + 60_000)).toBe(0);
  });

  it('prefers `retry-after-ms`, the header model SDKs send', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '750', 'retry-after': '1' }), NOW)).toBe(750);
  });

  it('reads Node-style header records, array values and any case', () => {
    expect(parseRetryAfter({ 'RETRY-AFTER': ['4', '9'] }, NOW)).toBe(4000);
  });

  it('returns undefined when there is nothing readable', () => {
    for (const headers of [{}, { 'retry-after': '' }, { 'retry-after': 'soon' }, { 'retry-after': '-5' }, null, 'x']) {
      expect(parseRetryAfter(headers, NOW), JSON.stringify(headers)).toBeUndefined();
    }
  });
});

describe('TransientError and DefectError', () => {
  it('carry their name, details and cause', () => {
    const cause = new Error('socket hang up');
    const transient = new TransientError('overloaded', { status: 529, retryAfterMs: 100, cause });
    expect([transient.name, transient.status, transient.retryAfterMs, transient.cause]).toEqual([
      'TransientError',
      529,
      100,
      cause,
    ]);
    const defect = new DefectError('bad output');
    expect([defect.name, defect.message, 'cause' in defect]).toEqual(['DefectError', 'bad output', false]);
  });
});
