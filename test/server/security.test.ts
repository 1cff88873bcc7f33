import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/server/security.js';
import { BASE, type Fixture, openFixture, PORT, RUNNING_ID, request, TOKEN } from './fixture.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await openFixture();
});
afterAll(() => fixture.close());

async function expectError(response: Response, status: number, name: string): Promise<string> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { name: string; message: string } };
  expect(body.error.name).toBe(name);
  expect(body.error.message).toEqual(expect.any(String));
  return body.error.message;
}

describe('token', () => {
  it('refuses a request without a token with 401', async () => {
    const response = await fixture.app.request(`${BASE}/api/executions`);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expectError(response, 401, 'Unauthorized');
  });

  it('refuses a wrong token, a token of another scheme and a longer token with 401', async () => {
    for (const authorization of ['Bearer wrong', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, 'Bearer']) {
      await expectError(
        await request(fixture.app, '/api/executions', { headers: { authorization } }),
        401,
        'Unauthorized',
      );
    }
  });

  it('refuses unknown /api routes without a token with 401, not 404', async () => {
    await expectError(await fixture.app.request(`${BASE}/api/nothing`), 401, 'Unauthorized');
  });

  it('accepts the token, with any case of the scheme', async () => {
    const response = await request(fixture.app, '/api/executions', { headers: { authorization: `bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
  });
});

describe('Host and Origin', () => {
  it('refuses a foreign Host with 403, even with the token', async () => {
    for (const host of [
      'evil.example:7878',
      `127.0.0.1:${PORT + 1}`,
      'localhost',
      `attacker.127.0.0.1.nip.io:${PORT}`,
    ]) {
      const response = await request(fixture.app, '/api/executions', { headers: { host } });
      expect(await expectError(response, 403, 'Forbidden')).toMatch(/DNS rebinding/);
    }
  });

  it('accepts the loopback names with the port', async () => {
    for (const host of [`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`, `LOCALHOST:${PORT}`]) {
      expect((await request(fixture.app, '/api/executions', { headers: { host } })).status).toBe(200);
    }
  });

  it('refuses a foreign Origin with 403 and accepts its own', async () => {
    for (const origin of ['http://evil.example', `https://127.0.0.1:${PORT}`, `http://127.0.0.1:${PORT + 1}`, 'null']) {
      const response = await request(fixture.app, '/api/executions', { headers: { origin } });
      expect(await expectError(response, 403, 'Forbidden')).toMatch(/cross-site/);
    }
    for (const origin of [`http://127.0.0.1:${PORT}`, `http://localhost:${PORT}`]) {
      expect((await request(fixture.app, '/api/executions', { headers: { origin } })).status).toBe(200);
    }
  });
});

describe('body limit', () => {
  it('refuses a body over the limit with 413, with or without Content-Length', async () => {
    const big = 'x'.repeat(MAX_BODY_BYTES + 1);
    const declared = await request(fixture.app, '/api/executions', {
      method: 'POST',
      body: big,
      headers: { 'content-length': String(big.length) },
    });
    await expectError(declared, 413, 'PayloadTooLarge');
    const streamed = await request(fixture.app, '/api/executions', {
      method: 'POST',
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    await expectError(streamed, 413, 'PayloadTooLarge');
  });

  it('lets a body at the limit through to the route (which finds it is not JSON: 400)', async () => {
    const response = await request(fixture.app, '/api/executions', {
      method: 'POST',
      body: 'x'.repeat(MAX_BODY_BYTES),
    });
    await expectError(response, 400, 'UsageError');
  });
});

describe('execution ids', () => {
  it('refuses ids that are not execution ids with 400, on every route under an id', async () => {
    const long = `${RUNNING_ID}0`;
    for (const id of ['..%2F..%2Fetc', '..%2F..%2Fetc%2Fpasswd', 'ABC', long, RUNNING_ID.toUpperCase(), '%00']) {
      for (const suffix of ['', '/context', '/events']) {
        const response = await request(fixture.app, `/api/executions/${id}${suffix}`);
        await expectError(response, 400, 'UsageError');
      }
      for (const suffix of ['/messages', '/cancel']) {
        const response = await request(fixture.app, `/api/executions/${id}${suffix}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'hi' }),
        });
        await expectError(response, 400, 'UsageError');
      }
    }
  });

  it('never lets a dot-segment reach a handler', async () => {
    // The URL parser resolves `..` (also as %2E%2E) before routing: this lands on `/context`, no
    // route of the API's, so on the Workbench's not-found page.
    const response = await request(fixture.app, '/api/executions/%2E%2E/%2E%2E/context');
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('<h1>No such page</h1>');
  });
});
