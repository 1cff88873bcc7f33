/**
 * The client's HTTP exchange (src/cli/http-exchange.ts) against loopback servers: the answer's status
 * and text, the request's method, headers and body as sent, and the failures the client maps — a
 * refused connection, an answer cut off, no answer in time — shaped as `fetch`'s.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { exchangeText } from '../../src/cli/http-exchange.js';

const servers: Server[] = [];

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('exchangeText', () => {
  it('sends the method, headers and body and gives the status and text', async () => {
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        response.writeHead(409, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            method: request.method,
            url: request.url,
            auth: request.headers.authorization,
            body,
            é: 'ü',
          }),
        );
      });
    });
    const answer = await exchangeText(`${url}/api/x?state=live`, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: '{"text":"héllo"}',
      timeoutMs: 5_000,
    });
    expect(answer.status).toBe(409);
    expect(JSON.parse(answer.text)).toEqual({
      method: 'POST',
      url: '/api/x?state=live',
      auth: 'Bearer t',
      body: '{"text":"héllo"}',
      é: 'ü',
    });
  });

  it('rejects a refused connection with its code as the cause', async () => {
    const url = await serve(() => undefined);
    const server = servers.pop() as Server;
    await new Promise((resolve) => server.close(resolve));
    const failure = await exchangeText(url, { method: 'GET', headers: {}, timeoutMs: 5_000 }).catch((error) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('rejects an answer cut off before its end as a reset connection', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const failure = await exchangeText(url, { method: 'GET', headers: {}, timeoutMs: 5_000 }).catch((error) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure.cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('rejects with a TimeoutError when the whole answer does not come in time', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200);
      response.write('slow');
    });
    const started = Date.now();
    const failure = await exchangeText(url, { method: 'GET', headers: {}, timeoutMs: 150 }).catch((error) => error);
    expect(failure).toBeInstanceOf(DOMException);
    expect(failure.name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
