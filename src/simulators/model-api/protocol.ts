/**
 * The seam between the server and one provider protocol (Anthropic Messages, OpenAI Responses,
 * OpenAI chat completions, Gemini): what the server needs to read from a request, and how the
 * provider writes a reply, an error, and an error inside a stream. One module per provider
 * implements it; all are stateless.
 */
import type { ServerResponse } from 'node:http';
import type { Reply } from './script.js';
import type { OfferedTool, ToolCall } from './tools.js';

export type Provider = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini';

/**
 * How the request authenticated, from its headers: Anthropic API keys come as `x-api-key`, OAuth
 * tokens (and OpenAI keys) as `authorization: Bearer`, Gemini keys as `x-goog-api-key`.
 */
export type AuthKind = 'x-api-key' | 'bearer' | 'x-goog-api-key' | 'none';

/**
 * What a request is for. Only `main` requests (the agent's turn) take a script's next reply; a
 * `title` request (OpenCode names its session) and a `classifier` request (Gemini CLI's model
 * router) are answered on the side.
 */
export type Purpose = 'main' | 'title' | 'classifier';

/** What the simulator reads from a request body. */
export interface RequestView {
  readonly model?: string;
  readonly stream: boolean;
  readonly tools: readonly OfferedTool[];
  /** The prompt: the text of the last user message that has text, without tagged context (see `promptText`). */
  readonly lastUserText?: string;
  /** The result of the last tool call the request sends back, as the model reads it (Anthropic only, for now). */
  readonly lastToolResult?: string;
  readonly purpose: Purpose;
}

/**
 * A successful reply's content. `limitWarning`: the utilization (0–1) of the subscription's five-hour
 * window the response reports as nearly used; a provider or auth without such a signal ignores it.
 */
export type Answer =
  | { readonly kind: 'text'; readonly text: string; readonly limitWarning?: number }
  | { readonly kind: 'tool'; readonly call: ToolCall };

/** An error reply of the script. */
export type ErrorReply = Extract<Reply, { inStream: boolean }>;

/** An HTTP error as the provider sends it. */
export interface ProviderError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** One request being answered. */
export interface Exchange {
  readonly res: ServerResponse;
  readonly view: RequestView;
  readonly auth: AuthKind;
  /** The usage reported as input tokens: the body's length / 4, a common rule of thumb. */
  readonly inputTokens: number;
  /** Returns a fresh id with the provider's prefix (`msg`, `toolu`, `resp`, `call`, …). */
  readonly id: (prefix: string) => string;
}

/** Hints the route gives (Gemini names the model and streaming in the path, not the body). */
export interface RouteHints {
  readonly model?: string;
  readonly stream?: boolean;
}

export interface Protocol {
  readonly provider: Provider;
  /** Reads a parsed JSON body; never throws: a missing or malformed field is absent from the view. */
  view(body: unknown, hints: RouteHints): RequestView;
  /** Writes a successful reply: a stream when the request asked for one, else one JSON body. */
  answer(exchange: Exchange, answer: Answer): void;
  /** The provider's own status, headers and body for an error reply. */
  error(reply: ErrorReply, exchange: Exchange): ProviderError;
  /** Writes the error reply inside an HTTP 200 stream, as the provider reports an error mid-stream. */
  streamError(exchange: Exchange, reply: ErrorReply): void;
}

/** A text that is one tagged block (`<session_context>…</session_context>`): context a CLI adds, not the prompt. */
const TAGGED_BLOCK = /^<([A-Za-z_-]+)>[\s\S]*<\/\1>$/;

/**
 * The prompt among user messages, given as each message's text parts in order: the untagged parts
 * of the last message that has any. CLIs send context beside the prompt as tagged blocks (Claude
 * Code `<system-reminder>`, Gemini CLI `<session_context>`, Codex `<environment_context>`), in the
 * prompt's message or a message of their own. When every part is tagged, the last message's parts;
 * undefined when no message has text (a request of tool results only is covered by the prompt before it).
 */
export function promptText(messages: readonly (readonly string[])[]): string | undefined {
  let fallback: string | undefined;
  for (const texts of [...messages].reverse()) {
    const prompt = texts.filter((text) => text !== '' && !TAGGED_BLOCK.test(text.trim()));
    if (prompt.length > 0) return prompt.join('\n');
    if (fallback === undefined && texts.some((text) => text !== '')) fallback = texts.join('\n');
  }
  return fallback;
}

/** The output tokens reported for an answer: its text's length / 4, at least 1. */
export function outputTokens(answer: Answer): number {
  const text =
    answer.kind === 'text'
      ? answer.text
      : answer.call.form === 'json'
        ? JSON.stringify(answer.call.arguments)
        : answer.call.input;
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Splits text into a few deltas, at word boundaries, so a stream carries more than one. */
export function deltas(text: string): string[] {
  const words = text.split(/(?<=\s)/);
  const size = Math.max(1, Math.ceil(words.length / 3));
  const parts: string[] = [];
  for (let i = 0; i < words.length; i += size) parts.push(words.slice(i, i + size).join(''));
  return parts;
}

/** Seconds since the epoch, as providers timestamp their objects. */
export function epochSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
