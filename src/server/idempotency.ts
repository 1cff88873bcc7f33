/**
 * The `Idempotency-Key` request header of the write routes that take one (`POST /api/executions`,
 * `POST /api/executions/:id/messages`), after the IETF draft draft-ietf-httpapi-idempotency-key-header:
 * the request's key, and the hash of its body that tells a retry (same key, same body) from a key
 * reused for another request (422). The ExecutionService records the key and answers a retry
 * (src/service/execution-service.ts); this module only reads the request. docs/api.md, "Idempotency".
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { UsageError } from '../core/errors.js';
import type { IdempotentRequest } from '../service/execution-service.js';
import type { Json } from '../store/resume-store.js';
import { canonicalJson } from '../workflows/fingerprint.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * 255 characters: a key is a client's nonce (a UUID is 36, a ULID 26); the bound keeps what the
 * service stores per key small (queue.ts keeps a thousand per execution).
 */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Printable ASCII, space included: what the draft's quoted string may hold. */
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * The request's key and the hash of `body` (the parsed JSON body: SHA-256 of its canonical JSON,
 * keys sorted, so the same body in another key order or spacing is the same request), or undefined
 * when the request has no `Idempotency-Key`. The value is the draft's quoted string
 * (`"8e03978e-…"`, with `\"` and `\\` escapes) or the same characters bare. Throws UsageError (400)
 * for a key that is empty, longer than MAX_IDEMPOTENCY_KEY_LENGTH, or not printable ASCII.
 */
export function idempotencyOf(c: Context, body: unknown): IdempotentRequest | undefined {
  const value = c.req.header(IDEMPOTENCY_HEADER);
  if (value === undefined) return undefined;
  const key = unquoted(value.trim());
  if (key === undefined || key === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !PRINTABLE.test(key)) {
    throw new UsageError(
      `bad ${IDEMPOTENCY_HEADER} header: give 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (a UUID, say)`,
    );
  }
  return {
    key,
    requestHash: createHash('sha256')
      .update(canonicalJson(body as Json))
      .digest('hex'),
  };
}

/** The key in a quoted string (its escapes undone), the value itself when it is not quoted; undefined for a broken quote. */
function unquoted(value: string): string | undefined {
  if (!value.startsWith('"')) return value;
  const match = /^"((?:[^"\\]|\\["\\])*)"$/.exec(value);
  return match?.[1]?.replace(/\\(["\\])/g, '$1');
}
