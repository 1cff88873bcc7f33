/**
 * One HTTP exchange with the service over node:http (node:https for an https URL): the request, and
 * the answer's status and text. The client's requests (client.ts) go this way rather than through
 * `fetch`, whose first call loads undici: tens of milliseconds of every start that asks the service
 * something, the terminal UI's first frame among them (bench/ui-first-frame.mjs, BENCHMARKS.md).
 *
 * It fails as `fetch` does where the client looks (client.ts `unreachable`, retry.ts
 * `connectionLost`): a connection that fails or breaks rejects with a TypeError whose `cause` is the
 * socket's error (its `code`: ECONNREFUSED, ECONNRESET, …); no whole answer within `timeoutMs`
 * rejects with a DOMException named TimeoutError, and the request is abandoned.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { createRequire } from 'node:module';

/**
 * Loads node:https for the first https URL only (TLS is most of a start's worth of modules). Not a
 * dynamic `import()`: the CLI's bundles run as CommonJS scripts (src/cli/bundled-verbs.ts).
 */
const requireBuiltin = createRequire(import.meta.url);

export interface HttpExchange {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
}

export interface HttpAnswer {
  readonly status: number;
  /** The answer's body, decoded as UTF-8. */
  readonly text: string;
}

export async function exchangeText(url: string, exchange: HttpExchange): Promise<HttpAnswer> {
  const target = new URL(url);
  const request =
    target.protocol === 'https:' ? (requireBuiltin('node:https') as typeof import('node:https')).request : httpRequest;
  const headers = {
    ...exchange.headers,
    ...(exchange.body !== undefined && { 'content-length': String(Buffer.byteLength(exchange.body)) }),
  };
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const failed = (error: Error) => settle(() => reject(new TypeError('fetch failed', { cause: error })));
    const options: RequestOptions = { method: exchange.method, headers };
    const sent: ClientRequest = request(target, options, (answer: IncomingMessage) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () =>
        settle(() => resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })),
      );
      answer.on('error', failed);
      // Closed before its end: the connection broke mid-answer (after 'end', `settle` ignores it).
      answer.on('close', () => failed(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' })));
    });
    const timer = setTimeout(() => {
      settle(() => reject(new DOMException(`no answer within ${exchange.timeoutMs} ms`, 'TimeoutError')));
      sent.destroy();
    }, exchange.timeoutMs);
    sent.on('error', failed);
    sent.end(exchange.body);
  });
}
