/**
 * The CLI client's detail routes, which the terminal UI's execution view reads: `context`, `changes`,
 * `disk` and the `events` stream, against the service's real app served on loopback
 * (test/web/served-app.ts: running, succeeded and queued executions whose worktrees do not exist).
 * Records the real service would never send (it streams only records that pass the event schema)
 * come from a scripted event stream on a loopback server of its own. `Changes` is also checked
 * against what `readChanges` reports for a real repository.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiToken, createClient, type EventRecord, type ServiceClient } from '../../src/cli/client.js';
import { Changes } from '../../src/cli/client-schemas.js';
import { NotFoundError, UsageError } from '../../src/core/errors.js';
import type { ExecutionContext } from '../../src/execution/context-schema.js';
import { type Connected, ConnectionLostError, MalformedEventError } from '../../src/web/event-stream.js';
import { readChanges } from '../../src/workspace/changes.js';
import {
  DONE_ID,
  ended,
  QUEUED_ID,
  RUNNING_ID,
  type ServedApp,
  serveApp,
  TOKEN,
  UNKNOWN_ID,
  warning,
} from '../web/served-app.js';
import { commitAll, sh, tempDirs, write } from '../workspace/helpers.js';

const TOKEN_FROM: ApiToken = { token: TOKEN, from: 'HARMFLOW_TOKEN' };

/** Everything a stream reported. */
interface Watch {
  /** `[id, what]`: a warning's message, else the record's type. */
  readonly records: [number, string][];
  readonly connected: Connected[];
  readonly errors: Error[];
  ends: number;
  close(): void;
}

function watch(client: ServiceClient, id: string, from?: number): Watch {
  const seen = { records: [] as [number, string][], connected: [] as Connected[], errors: [] as Error[], ends: 0 };
  const stream = client.events(
    id,
    {
      onRecord: (record, eventId) => seen.records.push([eventId, label(record)]),
      onConnected: (connected) => seen.connected.push(connected),
      onEnd: () => {
        seen.ends += 1;
      },
      onError: (error) => seen.errors.push(error),
      retryMs: 20,
    },
    from,
  );
  const watched = Object.assign(seen, { close: () => stream.close() });
  opened.push(watched);
  return watched;
}

/** Streams opened by the test, closed after it. */
let opened: Watch[] = [];

function label(record: EventRecord): string {
  return record.type === 'warning' && typeof record.data.message === 'string' ? record.data.message : record.type;
}

/** Waits until `condition` holds, polling every 5 ms; fails after `ms`. */
async function until(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A context.json as the engine writes it once attempt 1 ended. */
function contextOf(execution: string): ExecutionContext {
  return {
    version: 2,
    execution,
    task: 'fix-login',
    branch: `harmflow/fix-login-${execution}`,
    baseRef: 'main',
    baseSha: 'a'.repeat(40),
    worktree: `/w/${execution}`,
    writtenAt: '2025-03-01T10:05:01.000Z',
    attempts: [
      {
        number: 1,
        harness: 'claude-code',
        outcome: 'quota_exhausted',
        startedAt: '2025-03-01T10:00:01.000Z',
        endedAt: '2025-03-01T10:05:00.000Z',
        lastOperation: { kind: 'file_change', files: ['src/login.ts'] },
        workItems: [
          {
            text: 'fix the login',
            reported: { status: 'completed', by: 'claude-code plan' },
            filesChanged: ['src/login.ts'],
            tried: [
              {
                kind: 'commit',
                command: 'git commit -m "Fix the login"',
                exitCode: 128,
                error: 'fatal: unable to auto-detect email address',
                why: 'failed (exit 128)',
              },
            ],
            unconfirmed:
              'HarmFlow saw no commit made by this attempt: `git commit -m "Fix the login"` failed (exit 128): fatal: unable to auto-detect email address',
          },
        ],
      },
    ],
  };
}

afterEach(() => {
  for (const stream of opened) stream.close();
  opened = [];
});

describe('the detail routes against the service', () => {
  let served: ServedApp;
  let client: ServiceClient;

  beforeEach(async () => {
    served = await serveApp({ heartbeatMs: 20 });
    client = createClient({ url: served.url, token: TOKEN_FROM });
  });
  afterEach(async () => {
    await served.close();
  });

  it('keeps the token out of every field of the client', () => {
    expect(JSON.stringify(client)).not.toContain(TOKEN);
    expect(Object.values(client).filter((value) => typeof value === 'string')).toEqual([served.url]);
  });

  it("reads an execution's context.json; NotFoundError before any attempt ended and for an unknown id", async () => {
    // context.json sits beside events.jsonl in the execution's run directory (src/core/home.ts).
    const runDir = dirname(served.eventLog(DONE_ID).path);
    const written = contextOf(DONE_ID);
    writeFileSync(join(runDir, 'context.json'), JSON.stringify({ ...written, addedLater: true }));

    expect(await client.context(DONE_ID)).toEqual(written);
    const none = client.context(RUNNING_ID);
    await expect(none).rejects.toBeInstanceOf(NotFoundError);
    await expect(none).rejects.toThrow(`execution ${RUNNING_ID} has no context.json yet`);
    await expect(client.context(UNKNOWN_ID)).rejects.toThrow(new NotFoundError(`no execution ${UNKNOWN_ID}`));
  });

  it('reads a context.json of version 1 as version 2: the plan statuses become what the harness reported', async () => {
    const runDir = dirname(served.eventLog(DONE_ID).path);
    const { version: _, attempts, ...rest } = contextOf(DONE_ID);
    const [attempt] = attempts;
    const v1 = {
      ...rest,
      version: 1,
      attempts: [
        {
          ...attempt,
          workItems: [
            { text: 'fix the login', status: 'in_progress', filesChanged: ['src/login.ts'] },
            { text: 'read the code' },
          ],
        },
      ],
    };
    writeFileSync(join(runDir, 'context.json'), JSON.stringify(v1));

    const read = await client.context(DONE_ID);
    expect(read.version).toBe(2);
    expect(read.attempts[0]?.workItems).toEqual([
      {
        text: 'fix the login',
        reported: { status: 'in_progress', by: 'claude-code plan' },
        filesChanged: ['src/login.ts'],
      },
      { text: 'read the code' },
    ]);
  });

  it('answers changes with NotFoundError when the worktree is gone (the fixture has none) or the id is unknown', async () => {
    const gone = client.changes(DONE_ID);
    await expect(gone).rejects.toBeInstanceOf(NotFoundError);
    await expect(gone).rejects.toThrow(`worktree /w/${DONE_ID} no longer exists`);
    await expect(client.changes(UNKNOWN_ID)).rejects.toThrow(new NotFoundError(`no execution ${UNKNOWN_ID}`));
  });

  it('reads what an execution takes on disk: 0 bytes for trees that do not exist; NotFoundError for an unknown id', async () => {
    expect(await client.disk(QUEUED_ID)).toEqual({ worktreeBytes: 0, runBytes: 0 });
    await expect(client.disk(UNKNOWN_ID)).rejects.toThrow(new NotFoundError(`no execution ${UNKNOWN_ID}`));
  });

  it('streams the records in order with their ids, live, and ends after execution.ended', async () => {
    const log = served.eventLog(RUNNING_ID);
    log.append(warning('a'));
    log.append(warning('b'));
    const w = watch(client, RUNNING_ID);
    await until('the first records', () => w.records.length === 2);
    log.append(warning('c'));
    log.append(ended);
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'execution.ended'],
    ]);
    expect(w.connected).toEqual([{ execution: RUNNING_ID, from: 0 }]);
    expect(w.errors).toEqual([]);
  });

  it('hands the records over with their envelope fields', async () => {
    const log = served.eventLog(DONE_ID);
    const appended = [log.append(warning('only')), log.append(ended)];
    const records: EventRecord[] = [];
    let ends = 0;
    client.events(DONE_ID, {
      onRecord: (record) => records.push(record),
      onEnd: () => {
        ends += 1;
      },
    });
    await until('the end', () => ends === 1);
    expect(records).toEqual(appended);
  });

  it('starts after the first `from` records', async () => {
    const log = served.eventLog(DONE_ID);
    for (const message of ['a', 'b', 'c']) log.append(warning(message));
    log.append(ended);
    const w = watch(client, DONE_ID, 2);
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [3, 'c'],
      [4, 'execution.ended'],
    ]);
    expect(w.connected).toEqual([{ execution: DONE_ID, from: 2 }]);
  });

  it('resumes after the connections drop, without repeating or missing a record', async () => {
    const log = served.eventLog(RUNNING_ID);
    log.append(warning('a'));
    log.append(warning('b'));
    const w = watch(client, RUNNING_ID);
    await until('the first records', () => w.records.length === 2);
    served.dropConnections();
    log.append(warning('c'));
    log.append(warning('d'));
    await until('the reconnection', () => w.connected.length === 2);
    log.append(ended);
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
      [5, 'execution.ended'],
    ]);
    expect(w.connected).toEqual([
      { execution: RUNNING_ID, from: 0 },
      { execution: RUNNING_ID, from: 2 },
    ]);
    expect(w.errors.length).toBeGreaterThan(0);
    expect(w.errors.every((error) => error instanceof ConnectionLostError)).toBe(true);
  });

  it("reports a refused token as the CLI's UsageError naming where the token came from", async () => {
    const wrong = createClient({
      url: served.url,
      token: { token: 'not-the-token', from: '/home/me/.harmflow/token' },
    });
    const w = watch(wrong, RUNNING_ID);
    await until('the error', () => w.errors.length === 1);
    const [error] = w.errors;
    expect(error).toBeInstanceOf(UsageError);
    expect(error?.message).toMatch(
      new RegExp(`^the service at ${served.url} refused the API token from /home/me/\\.harmflow/token: `),
    );
    expect(error?.message).not.toContain('not-the-token');
    expect(w.records).toEqual([]);
  });

  it('reports an unknown execution as NotFoundError and a bad `from` as UsageError', async () => {
    const unknown = watch(client, UNKNOWN_ID);
    const badFrom = watch(client, DONE_ID, -1);
    await until('both errors', () => unknown.errors.length === 1 && badFrom.errors.length === 1);
    expect(unknown.errors[0]).toBeInstanceOf(NotFoundError);
    expect(unknown.errors[0]?.message).toContain(UNKNOWN_ID);
    expect(badFrom.errors[0]).toBeInstanceOf(UsageError);
  });

  it('throws UsageError at once for an id that is not one, before any request', () => {
    expect(() => client.events('01jf3k', { onRecord: () => {} })).toThrow(UsageError);
    expect(served.answering()).toBe(0);
  });
});

describe('records the service would not send', () => {
  const ID = RUNNING_ID;
  const record = (type: string, data: unknown) =>
    JSON.stringify({ ts: '2025-03-01T10:00:00.000Z', execution: ID, source: 'executor', type, data });
  let server: Server;
  let url: string;

  beforeEach(async () => {
    const frames = [
      `event: connected\ndata: {"execution":"${ID}","from":0}\n\n`,
      `id: 1\ndata: ${record('warning', { message: 'first' })}\n\n`,
      `id: 2\ndata: {"type":"warning","data":{"message":"no envelope"}}\n\n`,
      `id: 3\ndata: ${record('future.thing', { nested: { n: 1 } })}\n\n`,
      `id: 4\ndata: ${record('warning', ['not', 'an', 'object'])}\n\n`,
      `id: 5\ndata: ${JSON.stringify({ ...JSON.parse(record('warning', {})), attempt: 0 })}\n\n`,
      `id: 6\ndata: ${record('execution.ended', { state: 'succeeded' })}\n\n`,
    ];
    server = createServer((request, response) => {
      if (request.url !== `/api/executions/${ID}/events`) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(frames.join(''));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('skips a record without the envelope, reporting a MalformedEventError, and passes an unknown type on', async () => {
    const w = watch(createClient({ url, token: TOKEN_FROM }), ID);
    await until('the end', () => w.ends === 1);
    expect(w.records).toEqual([
      [1, 'first'],
      [3, 'future.thing'],
      [6, 'execution.ended'],
    ]);
    expect(w.errors.map((error) => error.constructor)).toEqual([
      MalformedEventError,
      MalformedEventError,
      MalformedEventError,
    ]);
    expect(w.errors.map((error) => error.message.match(/^record (\d+) is not an event record: /)?.[1])).toEqual([
      '2',
      '4',
      '5',
    ]);
    expect((w.errors[0] as MalformedEventError).data).toBe('{"type":"warning","data":{"message":"no envelope"}}');
  });
});

describe('Changes', () => {
  const dirs = tempDirs();
  afterEach(() => dirs.cleanup());

  it('parses what readChanges reports of a real worktree, unchanged, once it went through JSON', async () => {
    const repo = await dirs.repo();
    await write(repo, 'docs/old.md', 'one\ntwo\nthree\n');
    await write(repo, 'src/auth.ts', 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n');
    const base = commitAll(repo, 'base');
    sh(repo, 'rm', '-q', 'docs/old.md');
    sh(repo, 'mv', 'src/auth.ts', 'src/session.ts');
    await write(repo, 'README.md', '# test\nmore\n');
    writeFileSync(join(repo, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0]));

    const changes = await readChanges({ worktree: repo, baseSha: base });
    expect(changes.files.map((file) => file.status).sort()).toEqual(['added', 'deleted', 'modified', 'renamed']);
    expect(Changes.parse(JSON.parse(JSON.stringify(changes)))).toEqual(changes);
  });

  it('refuses a file of an unknown status or a missing diff', () => {
    const file = { path: 'a', status: 'copied', additions: 0, deletions: 0 };
    expect(Changes.safeParse({ base: 'b', files: [file], diff: '', truncated: false }).success).toBe(false);
    expect(Changes.safeParse({ base: 'b', files: [], truncated: false }).success).toBe(false);
    expect(Changes.safeParse({ base: 'b', files: [], diff: '', truncated: false }).success).toBe(true);
  });
});
