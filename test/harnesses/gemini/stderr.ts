/**
 * Gemini CLI stderr as the recorded runs printed it (test/fixtures/README.md), trimmed to what the
 * classifier and the stderr watcher read: the startup noise, `Attempt N failed` retry lines and the
 * report of the error that ended the turn, with its message, stack frames and inspected properties.
 * `<home>` and `<bundle>` stand for the attempt's home dir and the CLI's bundle dir.
 */

/** What every run prints first. */
export const NOISE = [
  'Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.',
  'YOLO mode is enabled. All tool calls will be automatically approved.',
  'YOLO mode is enabled. All tool calls will be automatically approved.',
  'Ripgrep is not available. Falling back to GrepTool.',
].join('\n');

/** The report of the error that ended the turn: `<reporter> … <class>: <message>`, stack, properties. */
export function report(errorClass: string, message: string, status: number, reporter = 'Turn.run'): string {
  const where =
    reporter === 'Turn.run'
      ? `Error when talking to Gemini API Full report available at: <home>/tmp/gemini-client-error-Turn.run-sendMessageStream-2026-11-29T11-33-19-531Z.json`
      : `Error generating content via API. Full report available at: <home>/tmp/gemini-client-error-generateJson-api-2026-11-29T11-35-10-922Z.json`;
  return [
    `${where} ${errorClass}: ${message}`,
    '    at classifyGoogleError (file:///<bundle>/chunk-JDPZ4CE3.js:307320:18)',
    '    at retryWithBackoff (file:///<bundle>/chunk-JDPZ4CE3.js:308062:29)',
    '    at async Turn.run (file:///<bundle>/chunk-JDPZ4CE3.js:333001:24) {',
    '  cause: {',
    `    code: ${status},`,
    '    details: []',
    '  },',
    `  status: ${status}`,
    '}',
  ].join('\n');
}

/** Builds a stderr tail from its parts, one per line group. */
export const stderr = (...parts: string[]) => `${[NOISE, ...parts].join('\n')}\n`;

export const DAILY = 'You have exhausted your daily quota on this model.';

export const LIMIT_0 = [
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
  '* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 0, model: gemini-2.5-pro',
].join('\n');

export const LONG_RETRY = [
  'You exceeded your current quota, please check your plan and billing details.',
  '* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_paid_tier_requests, limit: 1000, model: gemini-2.5-pro',
  'Please retry in 3600s.',
].join('\n');

export const CAPACITY = 'No capacity available for model gemini-2.5-pro on the server';

export const PER_MINUTE = [
  'You exceeded your current quota, please check your plan and billing details.',
  '* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 2, model: gemini-2.5-pro',
  'Please retry in 2.5s.',
  'Suggested retry after 2s.',
].join('\n');

export const CAPACITY_RETRIES = [
  `Attempt 1 failed: ${CAPACITY}. Retrying after 1085ms...`,
  `Attempt 2 failed: ${CAPACITY}. Retrying after 3481ms...`,
].join('\n');

export const PER_MINUTE_RETRIES = [
  `Attempt 1 failed: ${PER_MINUTE}. Retrying after 5722ms...`,
  `Attempt 2 failed: ${PER_MINUTE}. Retrying after 11252ms...`,
  `Attempt 3 failed: ${PER_MINUTE}. Max attempts reached`,
].join('\n');

/** `Attempt N failed with status S` lines for a bare API error body (no quota details). */
export function statusRetries(status: number, body: string, message: string): string {
  return [
    `Attempt 1 failed with status ${status}. Retrying with backoff... _ApiError: ${body}`,
    `  status: ${status}`,
    '}',
    `Attempt 2 failed with status ${status}. Retrying with backoff... _ApiError: ${body}`,
    `  status: ${status}`,
    '}',
    `Attempt 3 failed: ${message}. Max attempts reached`,
  ].join('\n');
}
