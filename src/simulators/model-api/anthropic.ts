/**
 * The Anthropic Messages API (`POST /v1/messages`, used by Claude Code): SSE `message_start`,
 * `content_block_start/delta/stop`, `message_delta` (stop reason and usage), `message_stop`, or one
 * JSON message when `stream` is not true. Errors are `{"type":"error","error":{type,message}}`.
 * Reference note claude-code-and-codex.md §2, §3.5–3.6.
 */
import { z } from 'zod';
import {
  type Answer,
  deltas,
  type ErrorReply,
  type Exchange,
  epochSeconds,
  outputTokens,
  type Protocol,
  type ProviderError,
  promptText,
  type RequestView,
} from './protocol.js';
import { openStream, sendEvent, sendJson } from './sse.js';
import type { OfferedTool } from './tools.js';

/** The default `retry-after` of a rate limit, 1 s: what the note's mock sent (Claude ignores it below ~60 s). */
const RATE_LIMIT_RETRY_AFTER_S = 1;

/**
 * When a subscription's five-hour window resets, from the response (a rejection, a warning or an
 * allowed call): 2 hours. Any time inside the window does; Claude Code shows it as "resets <time>".
 */
const SUBSCRIPTION_RESET_S = 2 * 60 * 60;

const Message = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.unknown())]) });
const Block = z.looseObject({ type: z.string(), text: z.string().optional() });
const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  content: z.union([z.string(), z.array(z.unknown())]),
});
const Tool = z.looseObject({ name: z.string() });
const Body = z.looseObject({
  model: z.string().optional().catch(undefined),
  stream: z.boolean().optional().catch(undefined),
  messages: z.array(z.unknown()).catch([]),
  tools: z.array(z.unknown()).catch([]),
});

/** The text blocks of a message's content. */
function texts(content: string | unknown[]): string[] {
  if (typeof content === 'string') return [content];
  return content.flatMap((block) => {
    const parsed = Block.safeParse(block);
    return parsed.success && parsed.data.type === 'text' && parsed.data.text !== undefined ? [parsed.data.text] : [];
  });
}

/** The content of the last `tool_result` block of the conversation, its text blocks joined. */
function lastToolResult(messages: readonly unknown[]): string | undefined {
  for (const raw of [...messages].reverse()) {
    const message = Message.safeParse(raw);
    if (!message.success || message.data.role !== 'user' || typeof message.data.content === 'string') continue;
    for (const block of [...message.data.content].reverse()) {
      const result = ToolResultBlock.safeParse(block);
      if (result.success) return texts(result.data.content).join('\n');
    }
  }
  return undefined;
}

function view(body: unknown): RequestView {
  const parsed = Body.safeParse(body);
  const data = parsed.success ? parsed.data : { messages: [], tools: [] };
  const toolResult = lastToolResult(data.messages);
  const lastUserText = promptText(
    data.messages.flatMap((raw) => {
      const message = Message.safeParse(raw);
      return message.success && message.data.role === 'user' ? [texts(message.data.content)] : [];
    }),
  );
  const tools = data.tools.flatMap((tool): OfferedTool[] => {
    const named = Tool.safeParse(tool);
    return named.success ? [{ name: named.data.name, freeform: false }] : [];
  });
  return {
    ...(data.model !== undefined && { model: data.model }),
    stream: data.stream === true,
    tools,
    ...(lastUserText !== undefined && { lastUserText }),
    ...(toolResult !== undefined && { lastToolResult: toolResult }),
    purpose: 'main',
  };
}

function contentBlock(answer: Answer, exchange: Exchange): Record<string, unknown> {
  if (answer.kind === 'text') return { type: 'text', text: answer.text };
  const input = answer.call.form === 'json' ? answer.call.arguments : { input: answer.call.input };
  return { type: 'tool_use', id: exchange.id('toolu'), name: answer.call.name, input };
}

function usage(exchange: Exchange, output: number): Record<string, number> {
  return {
    input_tokens: exchange.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
  };
}

/**
 * The subscription headers of a successful OAuth call (an API key has no subscription: none): the
 * window is open (Claude's `rate_limit_event` "allowed"), or, for an answer with a `limitWarning`,
 * open but nearly used: `allowed_warning` with the five-hour window's utilization, as the API warns
 * before it refuses (reference note §2, `textwarn`).
 */
function subscriptionHeaders(exchange: Exchange, answer: Answer): Record<string, string> {
  if (exchange.auth !== 'bearer') return {};
  const reset = String(epochSeconds() + SUBSCRIPTION_RESET_S);
  if (answer.kind !== 'text' || answer.limitWarning === undefined) {
    return { 'anthropic-ratelimit-unified-status': 'allowed', 'anthropic-ratelimit-unified-reset': reset };
  }
  return {
    'anthropic-ratelimit-unified-status': 'allowed_warning',
    'anthropic-ratelimit-unified-reset': reset,
    'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    'anthropic-ratelimit-unified-5h-status': 'allowed_warning',
    'anthropic-ratelimit-unified-5h-reset': reset,
    'anthropic-ratelimit-unified-5h-utilization': String(answer.limitWarning),
  };
}

function answer(exchange: Exchange, reply: Answer): void {
  const { res, view } = exchange;
  const model = view.model ?? 'claude-sonnet-4-5';
  const id = exchange.id('msg');
  const block = contentBlock(reply, exchange);
  const stopReason = reply.kind === 'tool' ? 'tool_use' : 'end_turn';
  const output = outputTokens(reply);
  const headers = { 'request-id': exchange.id('req'), ...subscriptionHeaders(exchange, reply) };
  if (!view.stream) {
    const message = { id, type: 'message', role: 'assistant', model, content: [block] };
    sendJson(
      res,
      200,
      { ...message, stop_reason: stopReason, stop_sequence: null, usage: usage(exchange, output) },
      headers,
    );
    return;
  }
  openStream(res, headers);
  const send = (data: { type: string; [key: string]: unknown }) => sendEvent(res, data, data.type);
  send({
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(exchange, 1),
    },
  });
  if (reply.kind === 'text') {
    send({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const text of deltas(reply.text)) {
      send({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    }
  } else {
    send({ type: 'content_block_start', index: 0, content_block: { ...block, input: {} } });
    const json = JSON.stringify(block.input);
    for (const partial_json of deltas(json)) {
      send({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } });
    }
  }
  send({ type: 'content_block_stop', index: 0 });
  send({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: output },
  });
  send({ type: 'message_stop' });
  res.end();
}

function errorBody(type: string, message: string, exchange: Exchange): unknown {
  return { type: 'error', error: { type, message }, request_id: exchange.id('req') };
}

/**
 * Quota exhausted, by how the request authenticated: an API key's organisation is out of credit
 * (400, never retried by Claude Code); an OAuth token's subscription window is used up (429 with the
 * unified rate-limit headers "rejected", which Claude Code reports as "You've hit your 5-hour limit"
 * without retrying).
 */
function quota(exchange: Exchange): ProviderError {
  if (exchange.auth !== 'bearer') {
    const message =
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.';
    return { status: 400, headers: {}, body: errorBody('invalid_request_error', message, exchange) };
  }
  const reset = String(epochSeconds() + SUBSCRIPTION_RESET_S);
  return {
    status: 429,
    headers: {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': reset,
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-reset': reset,
      'anthropic-ratelimit-unified-5h-utilization': '1.0',
      'anthropic-ratelimit-unified-overage-status': 'rejected',
      'anthropic-ratelimit-unified-overage-disabled-reason': 'org_level_disabled',
    },
    body: errorBody(
      'rate_limit_error',
      "This request would exceed your account's rate limit. Please try again later.",
      exchange,
    ),
  };
}

function error(reply: ErrorReply, exchange: Exchange): ProviderError {
  switch (reply.kind) {
    case 'quota':
      return quota(exchange);
    case 'rateLimit': {
      const retryAfter = reply.retryAfter ?? RATE_LIMIT_RETRY_AFTER_S;
      const message =
        'This request would exceed the rate limit for your organization (sim) of 50,000 input tokens per minute. ' +
        'For details, refer to: https://docs.claude.com/en/api/rate-limits.';
      return {
        status: 429,
        headers: { 'retry-after': String(retryAfter) },
        body: errorBody('rate_limit_error', message, exchange),
      };
    }
    case 'overload':
      return { status: 529, headers: {}, body: errorBody('overloaded_error', 'Overloaded', exchange) };
    case 'serverError':
      return { status: 500, headers: {}, body: errorBody('api_error', 'Internal server error', exchange) };
    case 'authError':
      return { status: 401, headers: {}, body: errorBody('authentication_error', 'invalid x-api-key', exchange) };
  }
}

/** An `error` event after `message_start`, as the API reports an overload mid-stream. */
function streamError(exchange: Exchange, reply: ErrorReply): void {
  const { res, view } = exchange;
  openStream(res, { 'request-id': exchange.id('req') });
  const message = {
    id: exchange.id('msg'),
    type: 'message',
    role: 'assistant',
    model: view.model ?? 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: usage(exchange, 1),
  };
  sendEvent(res, { type: 'message_start', message }, 'message_start');
  sendEvent(res, error(reply, exchange).body, 'error');
  res.end();
}

export const anthropic: Protocol = { provider: 'anthropic', view, answer, error, streamError };
