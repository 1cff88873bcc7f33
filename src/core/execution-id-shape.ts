/**
 * The shape of an execution id (core/ids.ts makes them). Its own module, without the ULID generator
 * and the crypto it loads, for what only checks ids: the record verbs' bundle, the API's guards.
 */

/** True when the text has the shape of an execution id (guards paths built from user input). */
export function isExecutionId(text: string): boolean {
  return /^[0-9a-hjkmnp-tv-z]{26}$/.test(text);
}
