/**
 * OpenAI's error replies, shared by the Responses API and chat completions:
 * `{"error":{message,type,param,code}}` with the status and headers the API sends. Reference note
 * claude-code-and-codex.md §2 and §4.4 (Codex) and gemini-cli-and-opencode.md §3.6 (OpenCode).
 */
import type { ErrorReply, Exchange, ProviderError } from './protocol.js';

/** The default `retry-after` of a rate limit, 1 s: short enough for tests, honoured by Codex and OpenCode. */
const RATE_LIMIT_RETRY_AFTER_S = 1;

/** An error as OpenAI reports it, before it is put in a body. */
export interface OpenaiFailure {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly message: string;
  readonly type: string;
  readonly code: string;
}

export function openaiFailure(reply: ErrorReply, exchange: Exchange): OpenaiFailure {
  const headers = { 'x-request-id': exchange.id('req') };
  const model = exchange.view.model ?? 'gpt-5.5';
  switch (reply.kind) {
    case 'quota':
      return {
        status: 429,
        headers,
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      };
    case 'rateLimit': {
      const retryAfter = reply.retryAfter ?? RATE_LIMIT_RETRY_AFTER_S;
      return {
        status: 429,
        headers: { ...headers, 'retry-after': String(retryAfter), 'x-ratelimit-remaining-requests': '0' },
        message: `Rate limit reached for ${model} in organization org-sim on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in ${retryAfter}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        type: 'requests',
        code: 'rate_limit_exceeded',
      };
    }
    case 'overload':
      return {
        status: 503,
        headers,
        message: 'The server is overloaded. Please try again later.',
        type: 'server_error',
        code: 'server_is_overloaded',
      };
    case 'serverError':
      return {
        status: 500,
        headers,
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        code: 'server_error',
      };
    case 'authError':
      return {
        status: 401,
        headers,
        message:
          'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      };
  }
}

/** The error body: `{"error":{message,type,param,code}}`. */
export function openaiErrorBody(failure: OpenaiFailure): unknown {
  return { error: { message: failure.message, type: failure.type, param: null, code: failure.code } };
}

export function openaiError(reply: ErrorReply, exchange: Exchange): ProviderError {
  const failure = openaiFailure(reply, exchange);
  return { status: failure.status, headers: failure.headers, body: openaiErrorBody(failure) };
}
