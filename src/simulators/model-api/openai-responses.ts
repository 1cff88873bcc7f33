/**
 * The OpenAI Responses API (`POST /v1/responses`, used by Codex): SSE `response.created`,
 * `response.in_progress`, `response.output_item.added`, the item's content events,
 * `response.output_item.done`, `response.completed` with usage. A tool call is a `function_call`
 * item, or a `custom_tool_call` item for a free-form tool (Codex's `apply_patch`). An error inside
 * the stream is `response.failed`. Reference note claude-code-and-codex.md §2, §4.
 */
import { z } from 'zod';
import { openaiError, openaiFailure } from './openai-errors.js';
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

const Body = z.looseObject({
  model: z.string().optional().catch(undefined),
  stream: z.boolean().optional().catch(undefined),
  input: z.union([z.string(), z.array(z.unknown())]).catch([]),
  tools: z.array(z.unknown()).catch([]),
});
const Item = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.unknown())]) });
const Part = z.looseObject({ type: z.string(), text: z.string().optional() });
const Tool = z.looseObject({ type: z.string(), name: z.string().optional() });

/** The text parts of an input item's content. */
function texts(content: string | unknown[]): string[] {
  if (typeof content === 'string') return [content];
  return content.flatMap((part) => {
    const parsed = Part.safeParse(part);
    return parsed.success && parsed.data.type === 'input_text' && parsed.data.text !== undefined
      ? [parsed.data.text]
      : [];
  });
}

function view(body: unknown): RequestView {
  const parsed = Body.safeParse(body);
  const data = parsed.success ? parsed.data : { input: [], tools: [] };
  const lastUserText =
    typeof data.input === 'string'
      ? data.input
      : promptText(
          data.input.flatMap((raw) => {
            const item = Item.safeParse(raw);
            return item.success && item.data.role === 'user' ? [texts(item.data.content)] : [];
          }),
        );
  const tools = data.tools.flatMap((raw): OfferedTool[] => {
    const tool = Tool.safeParse(raw);
    if (!tool.success) return [];
    return [{ name: tool.data.name ?? tool.data.type, freeform: tool.data.type === 'custom' }];
  });
  return {
    ...(data.model !== undefined && { model: data.model }),
    stream: data.stream === true,
    tools,
    ...(lastUserText !== undefined && { lastUserText }),
    purpose: 'main',
  };
}

/** A sender that numbers events, as the API does (`sequence_number`). */
function sender(exchange: Exchange) {
  let sequence = 0;
  return (data: { type: string; [key: string]: unknown }) =>
    sendEvent(exchange.res, { ...data, sequence_number: sequence++ }, data.type);
}

function responseObject(exchange: Exchange, id: string, created: number) {
  return {
    id,
    object: 'response',
    created_at: created,
    status: 'in_progress',
    model: exchange.view.model ?? 'gpt-5.5',
    output: [] as unknown[],
    usage: null as unknown,
    error: null as unknown,
  };
}

function answer(exchange: Exchange, reply: Answer): void {
  const id = exchange.id('resp');
  const created = epochSeconds();
  const base = responseObject(exchange, id, created);
  const output = outputTokens(reply);
  const usage = {
    input_tokens: exchange.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: exchange.inputTokens + output,
  };
  const item = outputItem(exchange, reply);
  const completed = { ...base, status: 'completed', output: [item], usage };
  if (!exchange.view.stream) {
    sendJson(exchange.res, 200, completed, { 'x-request-id': exchange.id('req') });
    return;
  }
  openStream(exchange.res, { 'x-request-id': exchange.id('req') });
  const send = sender(exchange);
  send({ type: 'response.created', response: base });
  send({ type: 'response.in_progress', response: base });
  const position = { output_index: 0, item_id: item.id };
  if (item.type === 'message') {
    const text = reply.kind === 'text' ? reply.text : '';
    send({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    });
    const emptyPart = { type: 'output_text', text: '', annotations: [] };
    send({ type: 'response.content_part.added', ...position, content_index: 0, part: emptyPart });
    for (const delta of deltas(text)) {
      send({ type: 'response.output_text.delta', ...position, content_index: 0, delta });
    }
    send({ type: 'response.output_text.done', ...position, content_index: 0, text });
    send({ type: 'response.content_part.done', ...position, content_index: 0, part: { ...emptyPart, text } });
  } else if (item.type === 'function_call') {
    send({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    for (const delta of deltas(item.arguments)) {
      send({ type: 'response.function_call_arguments.delta', ...position, delta });
    }
    send({ type: 'response.function_call_arguments.done', ...position, arguments: item.arguments });
  } else {
    send({ type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', input: '' } });
    for (const delta of deltas(item.input)) send({ type: 'response.custom_tool_call_input.delta', ...position, delta });
    send({ type: 'response.custom_tool_call_input.done', ...position, input: item.input });
  }
  send({ type: 'response.output_item.done', output_index: 0, item });
  send({ type: 'response.completed', response: completed });
  exchange.res.end();
}

type OutputItem =
  | { id: string; type: 'message'; status: string; role: 'assistant'; content: unknown[] }
  | { id: string; type: 'function_call'; status: string; call_id: string; name: string; arguments: string }
  | { id: string; type: 'custom_tool_call'; status: string; call_id: string; name: string; input: string };

function outputItem(exchange: Exchange, reply: Answer): OutputItem {
  if (reply.kind === 'text') {
    const content = [{ type: 'output_text', text: reply.text, annotations: [] }];
    return { id: exchange.id('msg'), type: 'message', status: 'completed', role: 'assistant', content };
  }
  const { call } = reply;
  const call_id = exchange.id('call');
  if (call.form === 'freeform') {
    return {
      id: exchange.id('ctc'),
      type: 'custom_tool_call',
      status: 'completed',
      call_id,
      name: call.name,
      input: call.input,
    };
  }
  const args = JSON.stringify(call.arguments);
  return {
    id: exchange.id('fc'),
    type: 'function_call',
    status: 'completed',
    call_id,
    name: call.name,
    arguments: args,
  };
}

/** `response.created`, then `response.failed` carrying the error's code and message. */
function streamError(exchange: Exchange, reply: ErrorReply): void {
  const failure = openaiFailure(reply, exchange);
  const base = responseObject(exchange, exchange.id('resp'), epochSeconds());
  openStream(exchange.res, failure.headers);
  const send = sender(exchange);
  send({ type: 'response.created', response: base });
  send({
    type: 'response.failed',
    response: { ...base, status: 'failed', error: { code: failure.code, message: failure.message } },
  });
  exchange.res.end();
}

export const openaiResponses: Protocol = {
  provider: 'openai-responses',
  view,
  answer,
  error: openaiError,
  streamError,
};
