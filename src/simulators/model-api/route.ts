/**
 * Which endpoint a request names. The first path segment is the script; the rest is the provider's
 * own path: Anthropic `/v1/messages` (and `/count_tokens`), OpenAI `/v1/responses` and
 * `/v1/chat/completions`, Gemini `/v1beta/models/<model>:<method>`, and the model lists. Pure.
 */
import { anthropic } from './anthropic.js';
import { gemini } from './gemini.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';
import type { Protocol, RouteHints } from './protocol.js';

/** An endpoint that answers the agent's requests with a script reply. */
export interface ModelRoute {
  readonly kind: 'protocol';
  readonly protocol: Protocol;
  readonly hints: RouteHints;
}

/** An endpoint answered the same way whatever the script. */
export type InfoRoute =
  | { readonly kind: 'anthropic-count-tokens' }
  | { readonly kind: 'gemini-count-tokens'; readonly model: string }
  | { readonly kind: 'models' }
  | { readonly kind: 'gemini-models' };

export type Route = ModelRoute | InfoRoute;

/** Gemini's model paths: `/v1beta/models/<model>:<method>` (also under `/v1` and `/v1alpha`). */
const GEMINI_PATH = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

/** Splits a URL path into the script name and the provider path (which starts with `/`). */
export function splitPath(pathname: string): { readonly script: string; readonly path: string } {
  const [, script = '', ...rest] = pathname.split('/');
  return { script, path: `/${rest.join('/')}` };
}

/** The endpoint a method and provider path name; undefined when none. */
export function route(method: string, path: string): Route | undefined {
  if (method === 'GET') {
    if (path === '/v1/models') return { kind: 'models' };
    if (path === '/v1beta/models') return { kind: 'gemini-models' };
    // Anything else, including GET /v1/responses: Codex's WebSocket attempt falls back to HTTP on 404.
    return undefined;
  }
  if (method !== 'POST') return undefined;
  switch (path) {
    case '/v1/messages':
      return { kind: 'protocol', protocol: anthropic, hints: {} };
    case '/v1/messages/count_tokens':
      return { kind: 'anthropic-count-tokens' };
    case '/v1/responses':
      return { kind: 'protocol', protocol: openaiResponses, hints: {} };
    case '/v1/chat/completions':
      return { kind: 'protocol', protocol: openaiChat, hints: {} };
  }
  const match = GEMINI_PATH.exec(path);
  if (match === null) return undefined;
  const [, model = '', call] = match;
  if (call === 'countTokens') return { kind: 'gemini-count-tokens', model };
  return { kind: 'protocol', protocol: gemini, hints: { model, stream: call === 'streamGenerateContent' } };
}
