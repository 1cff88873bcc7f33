/**
 * The Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` and
 * `:generateContent`, used by Gemini CLI): `data:` chunks of `{candidates:[{content:{role:"model",
 * parts}}], usageMetadata, modelVersion, responseId}`, the last with `finishReason`; a tool call is a
 * `functionCall` part. Errors are google.rpc statuses (`{"error":{code,message,status,details}}`);
 * the quota ones carry the `QuotaFailure` and `RetryInfo` details Gemini CLI classifies by.
 * Reference note gemini-cli-and-opencode.md §2.4, §2.6.
 */
import { z } from 'zod';
import {
  type Answer,
  deltas,
  type ErrorReply,
  type Exchange,
  outputTokens,
  type Protocol,
  type ProviderError,
  promptText,
  type RequestView,
  type RouteHints,
} from './protocol.js';
import { openStream, sendEvent, sendJson } from './sse.js';
import type { OfferedTool } from './tools.js';

/**
 * The default `RetryInfo` delay of a rate limit, 2 s: what the note measured with. Gemini CLI waits
 * the larger of it and its own backoff (5 s, doubling), so a shorter one changes nothing.
 */
const RATE_LIMIT_RETRY_DELAY_S = 2;

/**
 * The `RetryInfo` delay of a daily-quota error, 41 s: as in the note's run. Under 300 s, so it is the
 * daily `quotaId` alone that makes Gemini CLI's error terminal (TerminalQuotaError, no retry).
 */
const DAILY_QUOTA_RETRY_DELAY_S = 41;

const Body = z.looseObject({
  contents: z.array(z.unknown()).catch([]),
  tools: z.array(z.unknown()).catch([]),
  generationConfig: z
    .looseObject({
      responseMimeType: z.string().optional().catch(undefined),
      responseJsonSchema: z.unknown().optional(),
      responseSchema: z.unknown().optional(),
    })
    .optional()
    .catch(undefined),
});
const Content = z.looseObject({ role: z.string().optional(), parts: z.array(z.unknown()) });
const TextPart = z.looseObject({ text: z.string() });
const Tool = z.looseObject({ functionDeclarations: z.array(z.looseObject({ name: z.string() })) });

function view(body: unknown, hints: RouteHints): RequestView {
  const parsed = Body.safeParse(body);
  const data = parsed.success ? parsed.data : { contents: [], tools: [], generationConfig: undefined };
  const lastUserText = promptText(
    data.contents.flatMap((raw) => {
      const content = Content.safeParse(raw);
      if (!content.success || content.data.role !== 'user') return [];
      return [
        content.data.parts.flatMap((part) => {
          const text = TextPart.safeParse(part);
          return text.success ? [text.data.text] : [];
        }),
      ];
    }),
  );
  const tools = data.tools.flatMap((raw): OfferedTool[] => {
    const tool = Tool.safeParse(raw);
    return tool.success ? tool.data.functionDeclarations.map((fn) => ({ name: fn.name, freeform: false })) : [];
  });
  const config = data.generationConfig;
  const wantsJson =
    config !== undefined &&
    (config.responseMimeType === 'application/json' ||
      config.responseJsonSchema !== undefined ||
      config.responseSchema !== undefined);
  return {
    ...(hints.model !== undefined && { model: hints.model }),
    stream: hints.stream === true,
    tools,
    ...(lastUserText !== undefined && { lastUserText }),
    purpose: hints.stream !== true && tools.length === 0 && wantsJson ? 'classifier' : 'main',
  };
}

function answer(exchange: Exchange, reply: Answer): void {
  const { res, view } = exchange;
  const model = view.model ?? 'gemini-2.5-pro';
  const responseId = exchange.id('resp');
  const output = outputTokens(reply);
  const usageMetadata = {
    promptTokenCount: exchange.inputTokens,
    candidatesTokenCount: output,
    totalTokenCount: exchange.inputTokens + output,
  };
  const chunk = (parts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, ...(last && { finishReason: 'STOP' }), index: 0 }],
    ...(last && { usageMetadata }),
    modelVersion: model,
    responseId,
  });
  if (reply.kind === 'tool') {
    const { call } = reply;
    const args = call.form === 'json' ? call.arguments : { input: call.input };
    const parts = [{ functionCall: { name: call.name, args } }];
    if (view.stream) {
      openStream(res);
      sendEvent(res, chunk(parts, true));
      res.end();
    } else sendJson(res, 200, chunk(parts, true));
    return;
  }
  if (!view.stream) {
    sendJson(res, 200, chunk([{ text: reply.text }], true));
    return;
  }
  openStream(res);
  const pieces = deltas(reply.text);
  pieces.forEach((piece, index) => {
    sendEvent(res, chunk([{ text: piece }], index === pieces.length - 1));
  });
  res.end();
}

function status(code: number, state: string, message: string, details?: unknown[]): ProviderError {
  return { status: code, headers: {}, body: { error: { code, message, status: state, ...(details && { details }) } } };
}

/** A `RESOURCE_EXHAUSTED` with the free tier's `QuotaFailure` for `quotaId`, and `RetryInfo`. */
function quotaFailure(model: string, quotaId: string, limit: number, retryDelayS: number): ProviderError {
  const metric = 'generativelanguage.googleapis.com/generate_content_free_tier_requests';
  const message =
    'You exceeded your current quota, please check your plan and billing details. For more information on this error, ' +
    'head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n' +
    `* Quota exceeded for metric: ${metric}, limit: ${limit}, model: ${model}\nPlease retry in ${retryDelayS}s.`;
  return status(429, 'RESOURCE_EXHAUSTED', message, [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: metric,
          quotaId,
          quotaDimensions: { location: 'global', model },
          quotaValue: String(limit),
        },
      ],
    },
    {
      '@type': 'type.googleapis.com/google.rpc.Help',
      links: [
        { description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' },
      ],
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryDelayS}s` },
  ]);
}

function error(reply: ErrorReply, exchange: Exchange): ProviderError {
  const model = exchange.view.model ?? 'gemini-2.5-pro';
  switch (reply.kind) {
    case 'quota':
      // Daily free-tier requests: Gemini CLI raises TerminalQuotaError and does not retry (note §2.6).
      return quotaFailure(model, 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', 50, DAILY_QUOTA_RETRY_DELAY_S);
    case 'rateLimit':
      // Per-minute requests: RetryableQuotaError, retried with backoff.
      return quotaFailure(
        model,
        'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
        5,
        reply.retryAfter ?? RATE_LIMIT_RETRY_DELAY_S,
      );
    case 'overload':
      return status(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
    case 'serverError':
      return status(
        500,
        'INTERNAL',
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      );
    case 'authError':
      return status(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ]);
  }
}

/**
 * The error JSON, bare (not an SSE `data:` line), as the body of an HTTP 200 stream: the Gemini SDK
 * raises a network chunk that parses as `{"error":{code,…}}` as an ApiError of that code, whereas an
 * SSE-framed error chunk is taken for a chunk without candidates ("Model stream ended without a
 * finish reason").
 */
function streamError(exchange: Exchange, reply: ErrorReply): void {
  openStream(exchange.res);
  exchange.res.end(JSON.stringify(error(reply, exchange).body));
}

export const gemini: Protocol = { provider: 'gemini', view, answer, error, streamError };
