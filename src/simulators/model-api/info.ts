/**
 * The endpoints a CLI may call besides the model itself, answered the same way for every script:
 * token counts and model lists. Owned by the server; writes the reply and says what it was.
 */
import type { ServerResponse } from 'node:http';
import type { RequestRecord } from './log.js';
import type { InfoRoute } from './route.js';
import { sendJson } from './sse.js';

/** The models the lists name: one per CLI's usual default, and OpenCode's simulated model. */
const MODEL_IDS = ['claude-sonnet-4-5', 'gpt-5.5', 'gemini-2.5-pro', 'sim-model'];

/**
 * Answers `route`; `inputTokens` is the count reported for a token-count request. Returns the log
 * fields. The model list has both OpenAI's (`object`, `owned_by`) and Anthropic's (`type`,
 * `display_name`, `has_more`) fields, so either SDK reads it.
 */
export function answerInfo(
  route: InfoRoute,
  res: ServerResponse,
  inputTokens: number,
): Pick<RequestRecord, 'provider' | 'model' | 'served'> {
  switch (route.kind) {
    case 'models':
      sendJson(res, 200, {
        object: 'list',
        data: MODEL_IDS.map((id) => ({
          id,
          object: 'model',
          type: 'model',
          display_name: id,
          created: 1_750_000_000,
          created_at: '2025-06-15T00:00:00Z',
          owned_by: 'harmflow-sim',
        })),
        has_more: false,
        first_id: MODEL_IDS[0],
        last_id: MODEL_IDS.at(-1),
      });
      return { served: 'models' };
    case 'gemini-models':
      sendJson(res, 200, { models: MODEL_IDS.map((id) => ({ name: `models/${id}`, displayName: id })) });
      return { provider: 'gemini', served: 'models' };
    case 'anthropic-count-tokens':
      sendJson(res, 200, { input_tokens: inputTokens });
      return { provider: 'anthropic', served: 'count_tokens' };
    case 'gemini-count-tokens':
      sendJson(res, 200, { totalTokens: inputTokens });
      return { provider: 'gemini', model: route.model, served: 'count_tokens' };
  }
}
