/**
 * The CLI's service client in-process, against the loopback fake of the API: how it finds the
 * service and the token, how API errors come back as named errors with their exit codes, and what
 * it does with answers that are not the API's.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatAdmission } from '../../src/cli/admission.js';
import { waitUntilEnded } from '../../src/cli/cancel.js';
import {
  createClient,
  DEFAULT_URL,
  errorFromResponse,
  readApiToken,
  type ServiceClient,
  serviceUrl,
} from '../../src/cli/client.js';
import { messageText } from '../../src/cli/send.js';
import {
  ConflictError,
  EXIT,
  HarmflowError,
  HarnessNotInstalledError,
  NotFoundError,
  RepositoryError,
  ServiceUnavailableError,
  TaskFileError,
  UsageError,
} from '../../src/core/errors.js';
import { harmflowHome } from '../../src/core/home.js';
import { executionRecord, type FakeService, ID, startFakeService, TOKEN } from './fake-service.js';

let dir: string;
let fake: FakeService;
let client: ServiceClient;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-client-'));
  fake = await startFakeService();
  client = createClient({ url: fake.url, token: { token: TOKEN, from: 'HARMFLOW_TOKEN' } });
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('serviceUrl', () => {
  it('defaults to the serve port on loopback, drops a trailing slash, refuses what is not http(s)', () => {
    expect(serviceUrl({})).toBe(DEFAULT_URL);
    expect(DEFAULT_URL).toBe('http://127.0.0.1:7878');
    expect(serviceUrl({ HARMFLOW_URL: 'http://localhost:9000/' })).toBe('http://localhost:9000');
    expect(() => serviceUrl({ HARMFLOW_URL: 'localhost:9000' })).toThrow(UsageError);
    expect(() => serviceUrl({ HARMFLOW_URL: 'ftp://host' })).toThrow(/HARMFLOW_URL is not an http\(s\) URL/);
  });
});

describe('readApiToken', () => {
  it('prefers HARMFLOW_TOKEN, else reads the token file', () => {
    const home = harmflowHome(join(dir, 'home'));
    mkdirSync(home.root);
    writeFileSync(join(home.root, 'token'), 'from-the-file\n', { mode: 0o600 });

    expect(readApiToken(home, { HARMFLOW_TOKEN: 'from-env' })).toEqual({ token: 'from-env', from: 'HARMFLOW_TOKEN' });
    expect(readApiToken(home, { HARMFLOW_TOKEN: '' })).toEqual({
      token: 'from-the-file',
      from: join(home.root, 'token'),
    });
  });

  it('never makes a token: without one it names the file and creates nothing', () => {
    const home = harmflowHome(join(dir, 'home'));

    expect(() => readApiToken(home, {})).toThrow(ServiceUnavailableError);
    expect(() => readApiToken(home, {})).toThrow(join(home.root, 'token'));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a token with whitespace', () => {
    expect(() => readApiToken(harmflowHome(dir), { HARMFLOW_TOKEN: 'two words' })).toThrow(UsageError);
  });
});

describe('errorFromResponse', () => {
  const service = { url: 'http://127.0.0.1:7878', token: { token: 't', from: '/home/me/.harmflow/token' } };
  const body = (name: string) => ({ error: { name, message: `${name} said so` } });
  const cases: [number, string, new (...args: never[]) => HarmflowError, number][] = [
    [400, 'UsageError', UsageError, EXIT.usage],
    [400, 'TaskFileError', TaskFileError, EXIT.invalidTask],
    [400, 'RepositoryError', RepositoryError, EXIT.repository],
    [401, 'Unauthorized', UsageError, EXIT.usage],
    [403, 'Forbidden', UsageError, EXIT.usage],
    [404, 'NotFoundError', NotFoundError, EXIT.notFound],
    [409, 'ConflictError', ConflictError, EXIT.conflict],
    [409, 'HarnessNotInstalledError', HarnessNotInstalledError, EXIT.harnessMissing],
    [413, 'PayloadTooLarge', UsageError, EXIT.usage],
    [503, 'ServiceUnavailableError', ServiceUnavailableError, EXIT.unavailable],
    [500, 'InternalError', HarmflowError, EXIT.internal],
  ];
  for (const [status, name, type, exit] of cases) {
    it(`${status} ${name} → ${type.name}, exit ${exit}`, () => {
      const error = errorFromResponse(status, body(name), service);
      expect(error).toBeInstanceOf(type);
      expect(error.exitCode).toBe(exit);
      expect(error.message).toContain(`${name} said so`);
    });
  }

  it('says which token the service refused', () => {
    expect(errorFromResponse(401, body('Unauthorized'), service).message).toBe(
      'the service at http://127.0.0.1:7878 refused the API token from /home/me/.harmflow/token: Unauthorized said so',
    );
  });

  it('an answer without the error body is not a HarmFlow service: exit 8', () => {
    const error = errorFromResponse(404, undefined, service);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.message).toMatch(/HTTP 404 without a HarmFlow error body/);
  });
});

describe('createClient', () => {
  it('parses answers and sends the bearer token and JSON bodies', async () => {
    fake.answer('POST /api/executions', { status: 201, body: { execution: executionRecord('queued') } });

    const execution = await client.submit({
      name: 't',
      repo: '/repos/app',
      baseRef: 'HEAD',
      prompt: 'p',
      harness: 'codex',
      fallbacks: [],
      timeout: '30m',
      failoverOn: [],
    });

    expect(execution).toEqual(executionRecord('queued'));
    expect(fake.requests).toEqual([
      {
        method: 'POST',
        path: '/api/executions',
        authorization: `Bearer ${TOKEN}`,
        body: { task: expect.objectContaining({ name: 't', repo: '/repos/app' }) },
      },
    ]);
  });

  it('an answer that does not fit the schema is an internal error naming the field', async () => {
    fake.answer('GET /api/admission', { status: 200, body: { cap: 'four' } });

    const error = await client.admission().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(HarmflowError);
    expect((error as HarmflowError).exitCode).toBe(EXIT.internal);
    expect((error as Error).message).toMatch(/GET \/api\/admission with an unexpected body.*cap/);
  });

  it('a service that does not answer in time is unavailable', async () => {
    fake.answer('POST /api/stop', 'hang');
    const impatient = createClient({ url: fake.url, token: { token: TOKEN, from: 'test' }, timeoutMs: 100 });

    const error = await impatient.stop().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toBe(
      `the HarmFlow service at ${fake.url} did not answer POST /api/stop within 0.1s`,
    );
  });

  it('refuses a malformed execution id before sending anything', async () => {
    await expect(client.send('../../etc', 'hi')).rejects.toThrow(UsageError);
    await expect(client.cancel(ID.toUpperCase())).rejects.toThrow(/not an execution id/);
    expect(fake.requests).toEqual([]);
  });
});

describe('waitUntilEnded', () => {
  it('gives up with exit 8 when the execution is still live at the deadline', async () => {
    fake.answer(`GET /api/executions/${ID}`, {
      status: 200,
      body: { execution: executionRecord('running'), attempts: [] },
    });

    const error = await waitUntilEnded(client, ID, 0).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toBe(
      `execution ${ID} is still running 0ms after the cancel (see \`harmflow show ${ID}\`)`,
    );
  });
});

describe('formatAdmission', () => {
  it('shows the reasons of a hold and free disk the service could not measure', () => {
    const lines = formatAdmission({
      cap: 1,
      capFrom: 'idle-cores',
      cores: 8,
      load1m: 9,
      running: 3,
      queued: 2,
      held: true,
      reasons: ['free disk under HARMFLOW_HOME could not be measured: ENOENT'],
      diskFloorBytes: 2 * 1024 ** 3,
    });
    expect(lines).toEqual([
      'admission  held',
      '  - free disk under HARMFLOW_HOME could not be measured: ENOENT',
      'running    3 of 1 (cap from idle-cores)',
      'queued     2',
      'load       9.00 over 1 min on 8 cores',
      'disk free  unknown (floor 2.0 GiB)',
    ]);
  });
});

describe('formatAdmission, the disk used', () => {
  it('names the shared caches beside the worktrees and run directories', () => {
    const lines = formatAdmission({
      cap: 2,
      capFrom: 'idle-cores',
      cores: 2,
      load1m: 0,
      running: 0,
      queued: 0,
      held: false,
      reasons: [],
      diskFreeBytes: 50 * 1024 ** 3,
      diskFloorBytes: 2 * 1024 ** 3,
      worktreesBytes: 3 * 1024 ** 3,
      runsBytes: 200 * 1024 ** 2,
      cachesBytes: 1.5 * 1024 ** 3,
      caches: { npm: 1.5 * 1024 ** 3 },
    });
    expect(lines.at(-1)).toBe('disk used  worktrees 3.0 GiB, run directories 200 MiB, shared caches 1.5 GiB');
  });
});

describe('messageText', () => {
  it('joins words, reads stdin for -, and refuses a blank message', async () => {
    expect(await messageText(['a', 'b'], Readable.from([]))).toBe('a b');
    expect(await messageText(['-'], Readable.from(['line 1\n', 'line 2\n']))).toBe('line 1\nline 2\n');
    await expect(messageText(['-'], Readable.from([' \n']))).rejects.toThrow(UsageError);
    expect(await messageText(['-', 'x'], Readable.from([]))).toBe('- x');
  });
});
