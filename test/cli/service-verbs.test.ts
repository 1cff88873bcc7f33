/**
 * The service verbs (`submit`, `send`, `cancel`, `resume`, `switch`, `admission`, `stop`) as users run them: the built
 * bin in a child process against a loopback fake of the API (test/cli/fake-service.ts), which
 * checks the token and records what the CLI sent. Needs dist/ built (`npm run build`).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { resolveTask, TaskFile } from '../../src/core/task.js';
import { loadTaskFile } from '../../src/core/task-file.js';
import { apiError, deadUrl, executionRecord, type FakeService, ID, startFakeService, TOKEN } from './fake-service.js';
import { type Ran, spawnHarmflow } from './spawn-harmflow.js';

let dir: string;
let home: string;
let fake: FakeService;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-service-verbs-'));
  home = join(dir, 'home');
  fake = await startFakeService();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `harmflow args` with the fake's URL and token. `env` overrides (undefined removes a variable).
 * Asynchronous: the fake answers from this process, so the test must not block it.
 */
function harmflow(args: string[], env: Record<string, string | undefined> = {}, stdin = ''): Promise<Ran> {
  const merged: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HARMFLOW_HOME: home,
    HARMFLOW_URL: fake.url,
    HARMFLOW_TOKEN: TOKEN,
    // No git identity for `submit` to fill in (test/cli/submit-identity.test.ts has that): no HOME,
    // no system config, and git told not to guess one from this machine's name.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'user.useConfigOnly',
    GIT_CONFIG_VALUE_0: 'true',
    ...env,
  };
  return spawnHarmflow(args, { env: merged, stdin });
}

/** Writes `name` under the temp dir (creating folders) and returns its path. */
function write(name: string, text: string): string {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** The `task` of the one request the fake got. */
function sentTask(): unknown {
  expect(fake.requests).toHaveLength(1);
  return (fake.requests[0]?.body as { task?: unknown } | undefined)?.task;
}

describe('submit', () => {
  it('sends the task with absolute repo and simulate paths and prints the id', async () => {
    const file = write(
      'tasks/fix.yaml',
      stringify({
        name: 'fix-login',
        repo: '../repo',
        baseRef: 'main',
        prompt: 'Fix the login.',
        harness: { harness: 'claude-code', simulate: 'scenarios/quota.yaml' },
        fallbacks: ['codex', { harness: 'codex', model: 'o4', args: ['--x'], env: { A: 'b' }, passEnv: ['HOME'] }],
        timeout: '1h30m',
        failoverOn: ['rate_limited'],
      }),
    );
    fake.answer('POST /api/executions', { status: 201, body: { execution: executionRecord('queued') } });

    const { code, stdout, stderr } = await harmflow(['submit', file]);

    expect(stderr).toBe('');
    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(`${ID} queued\n`);
    expect(fake.requests).toHaveLength(1);
    const sent = TaskFile.parse(sentTask());
    expect(sent.repo).toBe(resolve(dir, 'repo'));
    expect(sent.harness).toMatchObject({ simulate: resolve(dir, 'tasks/scenarios/quota.yaml') });
    // The service, resolving against nothing, gets the very task `run` would have run.
    expect(resolveTask(sent, (path) => path)).toEqual(loadTaskFile(file));
  });

  it('prints the record with --json', async () => {
    const file = write('task.yaml', stringify({ name: 't', prompt: 'p', harness: 'codex' }));
    fake.answer('POST /api/executions', { status: 201, body: { execution: executionRecord('running') } });

    const { code, stdout } = await harmflow(['submit', file, '--json']);

    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toEqual(executionRecord('running'));
    expect(TaskFile.parse(sentTask()).repo).toBe(dir);
  });

  it('fails on an invalid task file with exit 3, the message `run` gives, and sends nothing', async () => {
    const file = write('task.yaml', stringify({ name: 't', prompt: 'p', harness: 'gpt' }));

    // No token either: the task file is checked first.
    const { code, stderr } = await harmflow(['submit', file], { HARMFLOW_TOKEN: undefined });

    expect(code).toBe(EXIT.invalidTask);
    expect(stderr).toBe(
      `harmflow: ${file}: harness: unknown harness "gpt" (known: claude-code, codex, gemini, opencode)\n`,
    );
    expect(fake.requests).toEqual([]);
  });

  it('reports the service refusing while admission is held: exit 8 with its message', async () => {
    const file = write('task.yaml', stringify({ name: 't', prompt: 'p', harness: 'codex' }));
    fake.answer(
      'POST /api/executions',
      apiError(503, 'ServiceUnavailableError', 'admission is held: disk nearly full'),
    );

    const { code, stderr } = await harmflow(['submit', file]);

    expect(code).toBe(EXIT.unavailable);
    expect(stderr).toBe('harmflow: admission is held: disk nearly full\n');
  });

  it('reports a harness the service cannot find: exit 5', async () => {
    const file = write('task.yaml', stringify({ name: 't', prompt: 'p', harness: 'codex' }));
    fake.answer('POST /api/executions', apiError(409, 'HarnessNotInstalledError', 'harness codex is not installed'));

    const { code, stderr } = await harmflow(['submit', file]);

    expect(code).toBe(EXIT.harnessMissing);
    expect(stderr).toBe('harmflow: harness codex is not installed\n');
  });
});

describe('send', () => {
  const turn = (id: string, queued: number) => ({ status: 202, body: { turn: { id, execution: ID, queued } } });

  it('sends the text read from stdin with -', async () => {
    fake.answer(`POST /api/executions/${ID}/messages`, turn('t3', 2));
    const text = 'Now add a test for it.\nKeep it short.\n';

    const { code, stdout } = await harmflow(['send', ID, '-'], {}, text);

    expect(code).toBe(EXIT.ok);
    expect(fake.requests.map((request) => request.body)).toEqual([{ text }]);
    expect(fake.requests[0]?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(stdout).toBe(`queued turn t3 for ${ID} (1 ahead of it)\n`);
  });

  it('joins the words of the message with spaces', async () => {
    fake.answer(`POST /api/executions/${ID}/messages`, turn('t1', 1));

    const { code, stdout } = await harmflow(['send', ID, 'add', 'a', 'test', '--json']);

    expect(code).toBe(EXIT.ok);
    expect(fake.requests.map((request) => request.body)).toEqual([{ text: 'add a test' }]);
    expect(JSON.parse(stdout)).toEqual({ id: 't1', execution: ID, queued: 1 });
  });

  it('maps 409 (the execution has ended) to exit 7', async () => {
    fake.answer(`POST /api/executions/${ID}/messages`, apiError(409, 'ConflictError', `execution ${ID} has ended`));

    const { code, stderr } = await harmflow(['send', ID, 'more']);

    expect(code).toBe(EXIT.conflict);
    expect(stderr).toBe(`harmflow: execution ${ID} has ended\n`);
  });

  it('refuses an empty message from stdin with exit 2 and sends nothing', async () => {
    const { code, stderr } = await harmflow(['send', ID, '-'], {}, '  \n');

    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe('harmflow: the message is empty\n');
    expect(fake.requests).toEqual([]);
  });
});

describe('an execution named by a unique prefix', () => {
  /** An execution whose id shares its first 10 characters with ID's. */
  const NEIGHBOUR = `${ID.slice(0, 10)}zzzzzzzzzzzzzzzz`;
  const listed = {
    status: 200,
    body: { executions: [executionRecord('running'), executionRecord('succeeded', NEIGHBOUR)] },
  };
  const record = { status: 202, body: { execution: executionRecord('running') } };

  const verbs: [string, string[], string][] = [
    ['send', ['more'], 'messages'],
    ['cancel', ['--no-wait'], 'cancel'],
    ['resume', [], 'resume'],
    ['switch', ['--to', 'codex'], 'switch'],
  ];
  for (const [verb, rest, route] of verbs) {
    it(`${verb} resolves it against the service's list, then acts on the whole id`, async () => {
      fake.answer('GET /api/executions', listed);
      fake.answer(
        `POST /api/executions/${ID}/${route}`,
        route === 'messages' ? { status: 202, body: { turn: { id: 't2', execution: ID, queued: 1 } } } : record,
      );

      const { code, stderr } = await harmflow([verb, ID.slice(0, 12).toUpperCase(), ...rest]);

      expect(code, stderr).toBe(EXIT.ok);
      expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /api/executions',
        `POST /api/executions/${ID}/${route}`,
      ]);
    });
  }

  it('an ambiguous prefix: exit 2 and one line naming how many match, nothing sent', async () => {
    fake.answer('GET /api/executions', listed);

    const { code, stderr } = await harmflow(['cancel', ID.slice(0, 8)]);

    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe(`harmflow: execution id "${ID.slice(0, 8)}" is ambiguous: 2 executions start with it\n`);
    expect(fake.requests.map((request) => request.method)).toEqual(['GET']);
  });

  it('a prefix nothing starts with: exit 6 naming the service', async () => {
    fake.answer('GET /api/executions', listed);

    const { code, stderr } = await harmflow(['resume', '01zz']);

    expect(code).toBe(EXIT.notFound);
    expect(stderr).toBe(`harmflow: no execution "01zz" on the service at ${fake.url}\n`);
  });

  it('a prefix under 4 characters: exit 2 before any request', async () => {
    const { code, stderr } = await harmflow(['send', '01j', 'more']);

    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe('harmflow: execution id "01j" is too short: give at least 4 characters\n');
    expect(fake.requests).toEqual([]);
  });

  it('a whole id goes as it is, without the list', async () => {
    fake.answer(`POST /api/executions/${ID}/resume`, record);

    expect((await harmflow(['resume', ID])).code).toBe(EXIT.ok);
    expect(fake.requests.map((request) => request.path)).toEqual([`/api/executions/${ID}/resume`]);
  });
});

describe('resume', () => {
  it('asks the service to end the wait and says so; 409 (not waiting) is exit 7', async () => {
    fake.answer(`POST /api/executions/${ID}/resume`, { status: 202, body: { execution: executionRecord('waiting') } });
    const resumed = await harmflow(['resume', ID]);
    expect(resumed.code).toBe(EXIT.ok);
    expect(resumed.stdout).toBe(`${ID} resumed: it carries on now\n`);
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST /api/executions/${ID}/resume`,
    ]);

    fake.answer(
      `POST /api/executions/${ID}/resume`,
      apiError(409, 'ConflictError', `execution ${ID} is running, not waiting for a quota reset`),
    );
    const running = await harmflow(['resume', ID]);
    expect(running.code).toBe(EXIT.conflict);
    expect(running.stderr).toBe(`harmflow: execution ${ID} is running, not waiting for a quota reset\n`);
  });
});

describe('switch', () => {
  it('asks the service to switch, saying who asks and why; a bad harness is a usage error that sends nothing', async () => {
    fake.answer(`POST /api/executions/${ID}/switch`, { status: 202, body: { execution: executionRecord('running') } });
    const switched = await harmflow(['switch', ID, '--to', 'codex', '--model', 'gpt-5.5', '--reason', 'credit left']);
    expect(switched.code).toBe(EXIT.ok);
    expect(switched.stdout).toBe(`${ID} switches to codex (gpt-5.5): the running turn stops at its safepoint\n`);
    const [request] = fake.requests;
    expect(request?.path).toBe(`/api/executions/${ID}/switch`);
    expect(request?.body).toMatchObject({
      to: 'codex',
      model: 'gpt-5.5',
      reason: 'credit left',
      by: expect.stringMatching(/^cli \(.+\)$/),
    });

    const unknown = await harmflow(['switch', ID, '--to', 'gpt']);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toBe(
      'harmflow: --to: unknown harness "gpt" (known: claude-code, codex, gemini, opencode)\n',
    );
    expect(fake.requests).toHaveLength(1);

    fake.answer(
      `POST /api/executions/${ID}/switch`,
      apiError(409, 'ConflictError', `execution ${ID} is succeeded; only a running or waiting execution can switch`),
    );
    const ended = await harmflow(['switch', ID, '--to', 'gemini']);
    expect(ended.code).toBe(EXIT.conflict);
    expect(ended.stderr).toBe(
      `harmflow: execution ${ID} is succeeded; only a running or waiting execution can switch\n`,
    );
  });
});

describe('cancel', () => {
  it('waits until the execution has ended and prints its final state', async () => {
    fake.answer(`POST /api/executions/${ID}/cancel`, { status: 202, body: { execution: executionRecord('running') } });
    const polled = (state: 'running' | 'canceled') => ({
      status: 200,
      body: { execution: executionRecord(state), attempts: [] },
    });
    fake.answer(`GET /api/executions/${ID}`, polled('running'), polled('running'), polled('canceled'));

    const { code, stdout } = await harmflow(['cancel', ID]);

    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(`execution ${ID}: canceled\n`);
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST /api/executions/${ID}/cancel`,
      `GET /api/executions/${ID}`,
      `GET /api/executions/${ID}`,
      `GET /api/executions/${ID}`,
    ]);
  });

  it('returns at once with --no-wait', async () => {
    fake.answer(`POST /api/executions/${ID}/cancel`, { status: 202, body: { execution: executionRecord('running') } });

    const { code, stdout } = await harmflow(['cancel', ID, '--no-wait']);

    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(`execution ${ID}: cancel requested (running)\n`);
    expect(fake.requests).toHaveLength(1);
  });

  it('maps 404 to exit 6 and 409 to exit 7', async () => {
    fake.answer(`POST /api/executions/${ID}/cancel`, apiError(404, 'NotFoundError', `no execution ${ID}`));
    const missing = await harmflow(['cancel', ID]);
    expect(missing.code).toBe(EXIT.notFound);
    expect(missing.stderr).toBe(`harmflow: no execution ${ID}\n`);

    fake.answer(`POST /api/executions/${ID}/cancel`, apiError(409, 'ConflictError', `execution ${ID} has ended`));
    const ended = await harmflow(['cancel', ID]);
    expect(ended.code).toBe(EXIT.conflict);
  });

  it('refuses a --timeout that is not a duration, before any request', async () => {
    const { code, stderr } = await harmflow(['cancel', ID, '--timeout', 'soon']);

    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe('harmflow: --timeout: not a duration: soon\n');
    expect(fake.requests).toEqual([]);
  });
});

describe('admission', () => {
  const status = (held: boolean, reasons: string[]) => ({
    status: 200,
    body: {
      cap: 4,
      capFrom: 'cores',
      cores: 8,
      load1m: 1.5,
      running: 2,
      queued: 1,
      held,
      reasons,
      diskFreeBytes: 12.5 * 1024 ** 3,
      diskFloorBytes: 1024 ** 3,
    },
  });

  it('shows the status readably', async () => {
    fake.answer('GET /api/admission', status(false, []));

    const { code, stdout } = await harmflow(['admission']);

    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(
      [
        'admission  open',
        'running    2 of 4 (cap from cores)',
        'queued     1',
        'load       1.50 over 1 min on 8 cores',
        'disk free  12.5 GiB (floor 1.0 GiB)',
        '',
      ].join('\n'),
    );
  });

  it('holds with the reason given, and releases', async () => {
    fake.answer('POST /api/admission/hold', status(true, ['held: upgrading the host']));
    fake.answer('POST /api/admission/release', status(false, []));

    const held = await harmflow(['admission', 'hold', 'upgrading', 'the', 'host']);
    const released = await harmflow(['admission', 'release', '--json']);

    expect(held.code).toBe(EXIT.ok);
    expect(held.stdout).toMatch(/^admission {2}held\n {2}- held: upgrading the host\n/);
    expect(released.code).toBe(EXIT.ok);
    expect(JSON.parse(released.stdout)).toMatchObject({ held: false, reasons: [] });
    expect(fake.requests.map((request) => [request.path, request.body])).toEqual([
      ['/api/admission/hold', { reason: 'upgrading the host' }],
      ['/api/admission/release', undefined],
    ]);
  });

  it('takes --json before the subcommand too', async () => {
    fake.answer('POST /api/admission/release', status(false, []));

    const { code, stdout } = await harmflow(['admission', '--json', 'release']);

    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toMatchObject({ cap: 4 });
  });
});

describe('stop', () => {
  it('asks the service to stop', async () => {
    fake.answer('POST /api/stop', { status: 202, body: { stopping: true } });

    const { code, stdout } = await harmflow(['stop']);

    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(`the HarmFlow service at ${fake.url} is stopping\n`);
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /api/stop']);
  });

  it('says how many executions the stop suspends, and --json prints the answer', async () => {
    const body = { stopping: true, suspending: { running: 2, waiting: 1, queued: 3 } };
    fake.answer('POST /api/stop', { status: 202, body });

    const { code, stdout } = await harmflow(['stop']);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toBe(
      `the HarmFlow service at ${fake.url} is stopping: it suspends 2 running, 1 waiting and 3 queued execution(s), which carry on at its next start\n`,
    );

    fake.answer('POST /api/stop', { status: 202, body });
    const json = await harmflow(['stop', '--json']);
    expect(json.code).toBe(EXIT.ok);
    expect(JSON.parse(json.stdout)).toStrictEqual(body);
  });
});

describe('reaching the service', () => {
  it('without a service: exit 8 and one line saying how to start one', async () => {
    const url = await deadUrl();

    const { code, stderr } = await harmflow(['admission'], { HARMFLOW_URL: url });

    expect(code).toBe(EXIT.unavailable);
    expect(stderr).toBe(
      `harmflow: no HarmFlow service at ${url} (start one with \`harmflow serve\`, or give its URL: --url or HARMFLOW_URL)\n`,
    );
  });

  it('--url wins over HARMFLOW_URL, on every verb that reaches the service', async () => {
    const elsewhere = await deadUrl();
    fake.answer('POST /api/stop', { status: 202, body: { stopping: true } });

    const stopped = await harmflow(['stop', '--url', `${fake.url}/`], { HARMFLOW_URL: elsewhere });

    expect(stopped.code, stopped.stderr).toBe(EXIT.ok);
    expect(stopped.stdout).toBe(`the HarmFlow service at ${fake.url} is stopping\n`);
    const unreachable = await harmflow(['admission', '--url', elsewhere]);
    expect(unreachable.code).toBe(EXIT.unavailable);
    expect(unreachable.stderr).toContain(`no HarmFlow service at ${elsewhere}`);
    const verbs = [
      'submit',
      'send',
      'cancel',
      'resume',
      'switch',
      'admission',
      'admission hold',
      'admission release',
      'stop',
      'ui',
    ];
    const helps = await Promise.all(verbs.map((verb) => harmflow([...verb.split(' '), '--help'])));
    for (const [at, help] of helps.entries()) expect(help.stdout, verbs[at]).toContain('--url <url>');
  });

  it('a --url that is not an http(s) URL: exit 2 naming the option, nothing sent', async () => {
    const { code, stderr } = await harmflow(['admission', '--url', 'ftp://example.com']);

    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe('harmflow: --url is not an http(s) URL: ftp://example.com\n');
  });

  it('without a token: exit 8 naming where it is expected, and no token file made', async () => {
    const { code, stderr } = await harmflow(['stop'], { HARMFLOW_TOKEN: undefined });

    expect(code).toBe(EXIT.unavailable);
    expect(stderr).toContain(`no API token: set HARMFLOW_TOKEN, or start \`harmflow serve\``);
    expect(stderr).toContain(join(home, 'token'));
    expect(existsSync(join(home, 'token'))).toBe(false);
    expect(fake.requests).toEqual([]);
  });

  it('reads the token from <HARMFLOW_HOME>/token when HARMFLOW_TOKEN is not set', async () => {
    mkdirSync(home);
    writeFileSync(join(home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    fake.answer('POST /api/stop', { status: 202, body: { stopping: true } });

    const { code } = await harmflow(['stop'], { HARMFLOW_TOKEN: '' });

    expect(code).toBe(EXIT.ok);
    expect(fake.requests[0]?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a refused token: exit 2 saying which token was refused', async () => {
    const { code, stderr } = await harmflow(['stop'], { HARMFLOW_TOKEN: 'not-the-token' });

    expect(code).toBe(EXIT.usage);
    expect(stderr).toBe(
      `harmflow: the service at ${fake.url} refused the API token from HARMFLOW_TOKEN: wrong API token\n`,
    );
  });
});
