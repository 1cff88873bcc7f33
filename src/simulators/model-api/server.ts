/**
 * The loopback model-API simulator: an HTTP server on 127.0.0.1 that answers the real harness CLIs
 * the way Anthropic, OpenAI (Responses and chat completions) and Gemini would, from scripts. The
 * first path segment names the script (`http://127.0.0.1:P/<script>/v1/messages`), so CLIs running
 * at the same time can follow different scripts; the rest is the provider's own path.
 * docs/model-api-simulator.md is the reference.
 *
 * Ownership: the caller owns the returned `ModelApi` and must `close()` it. Scripts advance in
 * request arrival order, shared by every CLI that uses the same script name.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerInfo } from './info.js';
import { RequestLog, type RequestRecord } from './log.js';
import type { AuthKind, Exchange } from './protocol.js';
import { answerReply } from './replies.js';
import { route, splitPath } from './route.js';
import { parseScripts, ScriptCursor, type ScriptsSpec } from './script.js';
import { sideAnswer } from './side-requests.js';
import { sendJson } from './sse.js';

/** The largest request body read, 64 MiB: a long agent conversation re-sent in full stays far below it. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The host the simulator binds: loopback only, so nothing off this machine can reach it. */
const HOST = '127.0.0.1';

export interface ModelApiOptions {
  /** The port to listen on; 0 or absent picks a free one. */
  readonly port?: number;
  /** Scripts by name (validated; an invalid one throws ScriptError). */
  readonly scripts: ScriptsSpec;
  /** A file the request log is appended to, one JSON line per request. */
  readonly logFile?: string;
  /** Called after each request is answered, with its log record. Must not throw. */
  readonly onRequest?: (record: RequestRecord) => void;
}

export interface ModelApi {
  /** `http://127.0.0.1:<port>`; a CLI's base URL is this plus `/<script>` (and the provider's prefix). */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order of their answers. */
  readonly requests: readonly RequestRecord[];
  /** Stops listening, drops open connections and closes the log file. Idempotent. */
  close(): Promise<void>;
}

function authKind(req: IncomingMessage, query: URLSearchParams): AuthKind {
  if (req.headers['x-api-key'] !== undefined) return 'x-api-key';
  if (/^bearer\s/i.test(req.headers.authorization ?? '')) return 'bearer';
  if (req.headers['x-goog-api-key'] !== undefined || query.has('key')) return 'x-goog-api-key';
  return 'none';
}

/** Reads the whole body, up to MAX_BODY_BYTES; rejects beyond it. */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A 404 readable by every provider's client: Anthropic's envelope and OpenAI's/Google's `error` object. */
function notFound(res: ServerResponse, message: string): void {
  sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', code: 404, status: 'NOT_FOUND', message } });
}

/** Starts the simulator; resolves once it listens. Throws ScriptError for invalid scripts. */
export async function startModelApi(options: ModelApiOptions): Promise<ModelApi> {
  const scripts = parseScripts(options.scripts, 'the scripts');
  const cursors = new Map(Object.entries(scripts).map(([name, replies]) => [name, new ScriptCursor(replies)]));
  const log = new RequestLog(options.logFile);
  let counter = 0;
  const id = (prefix: string) => `${prefix}_sim${String(++counter).padStart(8, '0')}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = new Date().toISOString();
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const { script, path } = splitPath(url.pathname);
    const method = req.method ?? 'GET';
    const auth = authKind(req, url.searchParams);
    const base = { at, script, method, path: `${path}${url.search}`, auth };
    const record = (fields: Omit<RequestRecord, keyof typeof base | 'status'>) => {
      const entry: RequestRecord = { ...base, ...fields, status: res.statusCode };
      log.add(entry);
      options.onRequest?.(entry);
    };

    const text = await readBody(req);
    const cursor = cursors.get(script);
    const target = route(method, path);
    if (cursor === undefined || target === undefined) {
      notFound(
        res,
        cursor === undefined
          ? `no script named ${JSON.stringify(script)} (scripts: ${[...cursors.keys()].join(', ')})`
          : `no ${method} ${path} in the simulated APIs`,
      );
      return record({ served: 'not_found' });
    }
    let body: unknown;
    if (method === 'POST') {
      try {
        body = JSON.parse(text);
      } catch {
        sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'body is not JSON' } });
        return record({ served: 'bad_request' });
      }
    }
    const inputTokens = Math.max(1, Math.ceil(text.length / 4));
    if (target.kind !== 'protocol') return record(answerInfo(target, res, inputTokens));

    const { protocol } = target;
    const view = protocol.view(body, target.hints);
    const exchange: Exchange = { res, view, auth, inputTokens, id };
    const seen = {
      provider: protocol.provider,
      ...(view.model !== undefined && { model: view.model }),
      stream: view.stream,
      tools: view.tools.map((tool) => tool.name),
      ...(view.lastUserText !== undefined && { lastUserText: view.lastUserText }),
      ...(view.lastToolResult !== undefined && { lastToolResult: view.lastToolResult }),
    };
    const side = sideAnswer(view);
    if (side !== undefined && view.purpose !== 'main') {
      protocol.answer(exchange, side);
      return record({ ...seen, reply: view.purpose, served: view.purpose });
    }
    const { index, reply } = cursor.next();
    const served = answerReply(protocol, exchange, reply);
    return record({ ...seen, reply: index, served });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendJson(res, 500, { type: 'error', error: { type: 'simulator_error', message } });
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    log.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${HOST}:${port}`,
    port,
    requests: log.records,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).finally(() => log.close());
      return closing;
    },
  };
}

export type { RequestRecord } from './log.js';
