/**
 * OpenAI chat completions (`POST /v1/chat/completions`, used by OpenCode through
 * `@ai-sdk/openai-compatible`): `chat.completion.chunk` events with `delta` content or `tool_calls`,
 * one with `finish_reason`, then `{"choices":[],"usage":{…}}`, then `data: [DONE]`; or one
 * `chat.completion` when not streaming. OpenCode's title request (no tools, system prompt
 * "You are a title generator…") is recognised as `title`. Reference note gemini-cli-and-opencode.md §3.
 */
import { z } from 'zod';
import { openaiError, openaiErrorBody, openaiFailure } from './openai-errors.js';
import {
  type Answer,
  deltas,
  type ErrorReply,
  type Exchange,
  epochSeconds,
  outputTokens,
  type Protocol,
  promptText,
  type RequestView,
} from './protocol.js';
import { openStream, sendEvent, sendJson } from './sse.js';
import type { OfferedTool } from './tools.js';

/** How OpenCode's title-generation system prompt begins. */
const TITLE_PROMPT = 'You are a title generator';

const Body = z.looseObject({
  model: z.string().optional().catch(undefined),
  stream: z.boolean().optional().catch(undefined),
  messages: z.array(z.unknown()).catch([]),
  tools: z.array(z.unknown()).catch([]),
});
const Message = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.unknown()), z.null()]) });
const Part = z.looseObject({ type: z.string(), text: z.string().optional() });
const Tool = z.looseObject({ function: z.looseObject({ name: z.string() }) });

/** The text parts of a message's content. */
function texts(content: string | unknown[] | null): string[] {
  if (content === null) return [];
  if (typeof content === 'string') return [content];
  return content.flatMap((part) => {
    const parsed = Part.safeParse(part);
    return parsed.success && parsed.data.type === 'text' && parsed.data.text !== undefined ? [parsed.data.text] : [];
  });
}

function view(body: unknown): RequestView {
  const parsed = Body.safeParse(body);
  const data = parsed.success ? parsed.data : { messages: [], tools: [] };
  const messages = data.messages.flatMap((raw) => {
    const message = Message.safeParse(raw);
    return message.success ? [{ role: message.data.role, texts: texts(message.data.content) }] : [];
  });
  const lastUserText = promptText(messages.filter((m) => m.role === 'user').map((m) => m.texts));
  const tools = data.tools.flatMap((raw): OfferedTool[] => {
    const tool = Tool.safeParse(raw);
    return tool.success ? [{ name: tool.data.function.name, freeform: false }] : [];
  });
  const titling =
    tools.length === 0 &&
    messages.some((m) => m.role === 'system' && m.texts.some((text) => text.trimStart().startsWith(TITLE_PROMPT)));
  return {
    ...(data.model !== undefined && { model: data.model }),
    stream: data.stream === true,
    tools,
    ...(lastUserText !== undefined && { lastUserText }),
    purpose: titling ? 'title' : 'main',
  };
}

function answer(exchange: Exchange, reply: Answer): void {
  const id = exchange.id('chatcmpl');
  const created = epochSeconds();
  const model = exchange.view.model ?? 'sim-model';
  const output = outputTokens(reply);
  const usage = {
    prompt_tokens: exchange.inputTokens,
    completion_tokens: output,
    total_tokens: exchange.inputTokens + output,
  };
  const finishReason = reply.kind === 'tool' ? 'tool_calls' : 'stop';
  const toolCall =
    reply.kind === 'tool'
      ? {
          id: exchange.id('call'),
          type: 'function',
          function: {
            name: reply.call.name,
            arguments: JSON.stringify(reply.call.form === 'json' ? reply.call.arguments : { input: reply.call.input }),
          },
        }
      : undefined;
  const headers = { 'x-request-id': exchange.id('req') };
  if (!exchange.view.stream) {
    const message =
      toolCall !== undefined
        ? { role: 'assistant', content: null, tool_calls: [toolCall] }
        : { role: 'assistant', content: reply.kind === 'text' ? reply.text : '' };
    const completion = { id, object: 'chat.completion', created, model, choices: [] as unknown[], usage };
    completion.choices.push({ index: 0, message, finish_reason: finishReason });
    sendJson(exchange.res, 200, completion, headers);
    return;
  }
  openStream(exchange.res, headers);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    sendEvent(exchange.res, { id, object: 'chat.completion.chunk', created, model, choices, ...extra });
  const delta = (content: Record<string, unknown>, finish_reason: string | null = null) =>
    chunk([{ index: 0, delta: content, finish_reason }]);
  if (toolCall !== undefined) {
    delta({
      role: 'assistant',
      tool_calls: [{ index: 0, ...toolCall, function: { ...toolCall.function, arguments: '' } }],
    });
    for (const args of deltas(toolCall.function.arguments)) {
      delta({ tool_calls: [{ index: 0, function: { arguments: args } }] });
    }
  } else {
    delta({ role: 'assistant', content: '' });
    for (const content of deltas(reply.kind === 'text' ? reply.text : '')) delta({ content });
  }
  delta({}, finishReason);
  chunk([], { usage });
  sendEvent(exchange.res, '[DONE]');
  exchange.res.end();
}

/** A `data: {"error":{…}}` event in an HTTP 200 stream, then `[DONE]`. */
function streamError(exchange: Exchange, reply: ErrorReply): void {
  const failure = openaiFailure(reply, exchange);
  openStream(exchange.res, failure.headers);
  sendEvent(exchange.res, openaiErrorBody(failure));
  sendEvent(exchange.res, '[DONE]');
  exchange.res.end();
}

export const openaiChat: Protocol = { provider: 'openai-chat', view, answer, error: openaiError, streamError };
