/**
 * Random identifiers shaped like the real ones: Anthropic `msg_01…`, `toolu_01…`, `req_011…`
 * (base62 tails) and OpenAI `req_…` (hex). Only their shape matters; nothing parses their content.
 */
import { randomBytes, randomInt } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random base62 string of `length` characters. */
export function base62(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += BASE62[randomInt(BASE62.length)];
  return text;
}

/** An OpenAI-style request id, e.g. `req_4f1c…` (32 hex digits). */
export function openaiRequestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}
