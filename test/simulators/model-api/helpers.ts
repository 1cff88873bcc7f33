/**
 * Helpers for the model-API simulator's protocol tests: requests with fetch, and a reader for
 * server-sent events that checks the framing (every event ends with a blank line).
 */
import { afterEach } from 'vitest';
import { type ModelApi, type ModelApiOptions, startModelApi } from '../../../src/simulators/model-api/server.js';

export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** Reads a whole event stream; throws when the body is not blank-line-framed `event:`/`data:` lines. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`not an event stream: ${response.headers.get('content-type')}`);
  }
  const text = await response.text();
  if (!text.endsWith('\n\n')) throw new Error('the stream does not end with a blank line');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      let event: string | undefined;
      let data: string | undefined;
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data = line.slice('data: '.length);
        else throw new Error(`unexpected line in an event: ${JSON.stringify(line)}`);
      }
      if (data === undefined) throw new Error(`an event without data: ${JSON.stringify(block)}`);
      return { ...(event !== undefined && { event }), data };
    });
}

/**
 * The JSON data of each event (`[DONE]` kept as the string). Untyped on purpose: the tests walk
 * provider JSON of many shapes, and every field they read is checked by an assertion.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above.
export function dataOf(events: readonly SseEvent[]): any[] {
  return events.map((event) => (event.data === '[DONE]' ? event.data : JSON.parse(event.data)));
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const started: ModelApi[] = [];

/** Starts a simulator that is closed after the current test. */
export async function startApi(options: ModelApiOptions): Promise<ModelApi> {
  const api = await startModelApi(options);
  started.push(api);
  return api;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((api) => api.close()));
});

/** A JSON response body, untyped like `dataOf`. */
// biome-ignore lint/suspicious/noExplicitAny: see `dataOf`.
export async function readJson(response: Response): Promise<any> {
  return response.json();
}
