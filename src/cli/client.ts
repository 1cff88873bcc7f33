/**
 * The CLI's client of a running `harmflow serve`: one method per route the service verbs and the
 * terminal UI use (submit, list, detail — context, changes, disk, the event stream —, send, cancel,
 * the workflow runs, admission, stop). Where: the verb's `--url`, else `HARMFLOW_URL`, else
 * http://127.0.0.1:7878.
 * Who: the bearer token from `HARMFLOW_TOKEN`, else `<HARMFLOW_HOME>/token`; the client only reads
 * it, never makes one (that is the service's first start).
 *
 * Every answer is parsed with zod. An API error `{"error":{"name","message"}}` comes back as the
 * named error class its status and name stand for, so the CLI exits with the code it would have
 * used locally (docs/cli.md). Stateless: each call is one request — except `submit` and `send`,
 * which carry an `Idempotency-Key` and are sent again with it while the service restarts
 * (retry.ts) —; nothing to close, except the event streams `events` opens (src/web/event-stream.ts
 * reads them), which their caller closes.
 * The token is only ever sent in the Authorization header; no field of the client holds it.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
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
} from '../core/errors.js';
import { isExecutionId } from '../core/execution-id-shape.js';
import { type HomePaths, harmflowHome } from '../core/home.js';
import type { TaskFileInput } from '../core/task.js';
import type { ExecutionContext } from '../execution/context-schema.js';
import type { ExecutionDisk } from '../execution/execution-disk.js';
import type { SwitchBody } from '../server/routes/executions.js';
import { tokenFile } from '../server/token-file.js';
import type { ExecutionRecord } from '../store/store.js';
import { ApiError } from '../web/api.js';
import { type Connected, type EventStream, MalformedEventError, openEventStream } from '../web/event-stream.js';
import type { EventRecord } from '../web/records.js';
import {
  AdmissionStatus,
  Changes,
  Disk,
  EventEnvelope,
  ExecutionBody,
  ExecutionIds,
  ExecutionList,
  ExecutionWithAttempts,
  Stopping,
  Turn,
  type WorkflowRun,
  WorkflowRunList,
  WorkflowRunWithSteps,
} from './client-schemas.js';
import { DEFAULT_PORT } from './default-port.js';
import { exchangeText } from './http-exchange.js';
import { connectionLost, type Outcome, RESTART_RETRY, type RetryPolicy, retryDelays, withRetries } from './retry.js';

export type { ExecutionContext } from '../execution/context-schema.js';
export type { ExecutionDisk } from '../execution/execution-disk.js';
export type { Connected, EventStream } from '../web/event-stream.js';
export type { EventRecord } from '../web/records.js';
export type {
  AdmissionStatus,
  Changes,
  ExecutionList,
  ExecutionWithAttempts,
  Stopping,
  Turn,
  WorkflowRun,
  WorkflowRunWithSteps,
} from './client-schemas.js';

/** What `switchHarness` sends. */
export type SwitchRequestBody = z.input<typeof SwitchBody>;

/** Where the CLI looks for the service unless `HARMFLOW_URL` says otherwise: `harmflow serve`'s default. */
export const DEFAULT_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

/**
 * 30 s per request. Every route answers without waiting on a harness (submit queues, cancel
 * signals), so on loopback an answer takes milliseconds; the slowest is submit, where the service
 * checks the repository with git before it answers. A service silent for 30 s is stuck, and a
 * script is better told so than left hanging.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The help of the verbs' `--home` option: for them, HARMFLOW_HOME is where the token is. */
export const HOME_HELP = 'state directory holding the API token (default: $HARMFLOW_HOME or ~/.harmflow)';

/** The help of the verbs' `--url` option. */
export const URL_HELP = `the service's URL (default: $HARMFLOW_URL, else ${DEFAULT_URL})`;

/** What a service verb's options say about where the service is and where its token is. */
export interface ServiceOptions {
  readonly home?: string;
  readonly url?: string;
}

/** A token is one word: the service refuses anything else (src/server/token.ts). */
const Token = z.string().regex(/^\S+$/);

/** An http(s) URL, as `HARMFLOW_URL` must be. */
const ServiceUrl = z.url({ protocol: /^https?$/ });

/** The error body every API error has (docs/api.md, "Errors"). */
const ErrorBody = z.object({ error: z.object({ name: z.string(), message: z.string() }) });

export interface ApiToken {
  readonly token: string;
  /** Where it came from, for messages: `HARMFLOW_TOKEN` or the token file's path. */
  readonly from: string;
}

export interface ClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:7878`. */
  readonly url: string;
  readonly token: ApiToken;
  /** Per-request timeout. Default REQUEST_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  /** How keyed writes (submit, send) are retried while the service restarts. Default RESTART_RETRY. */
  readonly retry?: RetryPolicy;
}

/** What `submit` and `send` take: the request's `Idempotency-Key`, a new UUID unless given. */
export interface WriteOptions {
  readonly idempotencyKey?: string;
}

type Method = 'GET' | 'POST';

/** An answer as `call` reads it: its status and its body's text. */
interface Answer {
  readonly status: number;
  readonly ok: boolean;
  readonly text: string;
}

/** A 503 a restarting service gives while it stops (the Registry's "the service is stopping"). */
const STOPPING = /\bthe service is stopping\b/;

/** Whether a keyed write's outcome means the service is restarting: retry it (retry.ts). */
function restarting(outcome: Outcome<Answer>): boolean {
  if ('error' in outcome) return connectionLost(outcome.error);
  const body = ErrorBody.safeParse(parseJson(outcome.value.text));
  return outcome.value.status === 503 && body.success && STOPPING.test(body.data.error.message);
}

/**
 * What an execution's event stream reports (`ServiceClient.events`). Callbacks run synchronously from
 * the stream; none is called after `close()`.
 */
export interface EventHandlers {
  /** Each record, once, in order, with its id (its position + 1); its envelope checked, its payload not. */
  onRecord(record: EventRecord, id: number): void;
  /** Each (re)connection: the execution, and how many records the server skipped. */
  onConnected?(connected: Connected): void;
  /** The stream ended for good: the service closed it after `execution.ended`. */
  onEnd?(): void;
  /**
   * A `MalformedEventError` for a record skipped (not JSON, or not an event record's envelope), a
   * `ConnectionLostError` before each reconnection (src/web/event-stream.ts), or the named
   * HarmflowError of an answer that retrying will not change (as `errorFromResponse` maps it:
   * UsageError for 400/401/403, NotFoundError for 404, …), after which the stream has stopped.
   */
  onError?(error: Error): void;
  /** Milliseconds before a reconnection; default `DEFAULT_RETRY_MS`, replaced by the server's `retry:`. */
  retryMs?: number;
}

/** The routes the service verbs and the terminal UI call. Each rejects with a HarmflowError (see `errorFromResponse`). */
export interface ServiceClient {
  readonly url: string;
  /**
   * `POST /api/executions`: the task's `repo` and `simulate` paths must be absolute. Sent with an
   * `Idempotency-Key`, retried with it while the service restarts (retry.ts): one call, one execution.
   */
  submit(task: TaskFileInput, options?: WriteOptions): Promise<ExecutionRecord>;
  /** `GET /api/executions?state=live|ended&include=attempts,owners`: live (queued, running, waiting) or ended, newest first. */
  executions(state: 'live' | 'ended'): Promise<ExecutionList>;
  /** `GET /api/executions`: the id of every execution, live and ended (to resolve a prefix). */
  executionIds(): Promise<string[]>;
  /** `GET /api/executions/:id`. */
  execution(id: string): Promise<ExecutionWithAttempts>;
  /**
   * `GET /api/executions/:id/context`: what each ended attempt did. NotFoundError both for an unknown
   * id and while no attempt has ended (the service writes context.json before the second attempt).
   */
  context(id: string): Promise<ExecutionContext>;
  /** `GET /api/executions/:id/changes`: NotFoundError when the id is unknown or the worktree is gone; 409 in cluster mode. */
  changes(id: string): Promise<Changes>;
  /** `GET /api/executions/:id/disk`: 409 in cluster mode. */
  disk(id: string): Promise<ExecutionDisk>;
  /**
   * Opens `GET /api/executions/:id/events` (`?from=N` skips the first N records), resuming with
   * Last-Event-ID after a dropped connection; see EventHandlers. Throws UsageError at once for a
   * malformed id; everything else reaches `onError`.
   */
  events(id: string, handlers: EventHandlers, from?: number): EventStream;
  /** `POST /api/executions/:id/messages`, keyed and retried as `submit`: one call, one turn. */
  send(id: string, text: string, options?: WriteOptions): Promise<Turn>;
  /** `POST /api/executions/:id/cancel`: asks; the execution ends later. */
  cancel(id: string): Promise<ExecutionRecord>;
  /** `POST /api/executions/:id/resume`: ends its wait for a quota reset now (409 when it is not waiting). */
  resume(id: string): Promise<ExecutionRecord>;
  /** `POST /api/executions/:id/switch`: asks for a switch to another harness (409 unless running or waiting). */
  switchHarness(id: string, request: SwitchRequestBody): Promise<ExecutionRecord>;
  /** `GET /api/workflows/runs`: the workflow runs, newest first, each in the state it is shown in. */
  workflowRuns(): Promise<WorkflowRun[]>;
  /** `GET /api/workflows/runs/:id`: the run and its items per step; NotFoundError for an unknown run. */
  workflowRun(id: string): Promise<WorkflowRunWithSteps>;
  /** `GET /api/admission`. */
  admission(): Promise<AdmissionStatus>;
  /** `POST /api/admission/hold`. */
  hold(reason: string): Promise<AdmissionStatus>;
  /** `POST /api/admission/release`. */
  release(): Promise<AdmissionStatus>;
  /** `POST /api/stop`: the service stops taking requests and exits; resolves to its answer. */
  stop(): Promise<Stopping>;
}

/**
 * The service URL, without a trailing slash: `option` (a verb's `--url`) when given, else
 * `HARMFLOW_URL` when set and not empty, else DEFAULT_URL. UsageError, naming which of the two it
 * was, when it is not an http(s) URL.
 */
export function serviceUrl(env: NodeJS.ProcessEnv = process.env, option?: string): string {
  const [given, from] = option !== undefined ? [option, '--url'] : [env.HARMFLOW_URL, 'HARMFLOW_URL'];
  if (given === undefined || given === '') return DEFAULT_URL;
  const parsed = ServiceUrl.safeParse(given);
  if (!parsed.success) throw new UsageError(`${from} is not an http(s) URL: ${given}`);
  return parsed.data.replace(/\/+$/, '');
}

/**
 * Reads the API token: `HARMFLOW_TOKEN` (when set and not empty) wins, else the token file in
 * `home`. Never creates one: without either, ServiceUnavailableError saying where it is expected.
 */
export function readApiToken(home: HomePaths, env: NodeJS.ProcessEnv = process.env): ApiToken {
  const fromEnv = env.HARMFLOW_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!Token.safeParse(fromEnv).success) throw new UsageError('HARMFLOW_TOKEN must be one word without whitespace');
    return { token: fromEnv, from: 'HARMFLOW_TOKEN' };
  }
  const file = tokenFile(home);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ServiceUnavailableError(`cannot read the API token file ${file}`, { cause: error });
    }
    throw new ServiceUnavailableError(
      `no API token: set HARMFLOW_TOKEN, or start \`harmflow serve\` with this HARMFLOW_HOME to write ${file}`,
    );
  }
  const parsed = Token.safeParse(text.trim());
  if (!parsed.success) throw new ServiceUnavailableError(`the token file ${file} does not hold a token`);
  return { token: parsed.data, from: file };
}

/** The client the service verbs use: URL from `--url` or the environment (serviceUrl), the token as readApiToken reads it. */
export function connect(options: ServiceOptions, env: NodeJS.ProcessEnv = process.env): ServiceClient {
  const url = serviceUrl(env, options.url);
  return createClient({ url, token: readApiToken(harmflowHome(options.home, env), env) });
}

/** Throws UsageError unless `id` is a whole execution id (the API takes no prefixes). */
export function requireExecutionId(id: string): string {
  if (!isExecutionId(id)) {
    throw new UsageError(`not an execution id: "${id.slice(0, 64)}" (give the whole 26-character id)`);
  }
  return id;
}

/** Throws UsageError unless `id` is a whole workflow run id (a run is named as an execution is: a ULID). */
export function requireRunId(id: string): string {
  if (!isExecutionId(id)) {
    throw new UsageError(`not a workflow run id: "${id.slice(0, 64)}" (give the whole 26-character id)`);
  }
  return id;
}

/**
 * A client of the service at `options.url`. Every method that answers with a promise rejects (never
 * throws) with a HarmflowError; `events` reports through its handlers.
 */
export function createClient(options: ClientOptions): ServiceClient {
  const { url, token } = options;
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const delays = retryDelays(options.retry ?? RESTART_RETRY);

  /** One request and its answer's text; rejects as `fetch` does when no answer came (http-exchange.ts). */
  async function exchange(method: Method, path: string, body: unknown, key: string | undefined): Promise<Answer> {
    const answer = await exchangeText(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token.token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(key !== undefined && { 'idempotency-key': JSON.stringify(key) }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      timeoutMs,
    });
    return { ...answer, ok: answer.status >= 200 && answer.status < 300 };
  }

  /**
   * Sends the request and parses its answer with `schema`. With `key` (a keyed write), a request
   * that got no answer or a 503 "stopping" goes again with the same key (retry.ts).
   */
  async function call<T>(method: Method, path: string, schema: z.ZodType<T>, body?: unknown, key?: string): Promise<T> {
    const route = `${method} ${path}`;
    let answer: Answer;
    try {
      answer =
        key === undefined
          ? await exchange(method, path, body, undefined)
          : await withRetries(() => exchange(method, path, body, key), restarting, delays);
    } catch (error) {
      throw unreachable(url, route, timeoutMs, error);
    }
    if (!answer.ok) throw errorFromResponse(answer.status, parseJson(answer.text), { url, token });
    const parsed = schema.safeParse(parseJson(answer.text));
    if (!parsed.success) {
      throw new HarmflowError(
        `the service at ${url} answered ${route} with an unexpected body (is it another HarmFlow version?): ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`,
        EXIT.internal,
      );
    }
    return parsed.data;
  }

  const executionPath = (id: string) => `/api/executions/${requireExecutionId(id)}`;

  return {
    url,
    submit: async (task, write = {}) =>
      (await call('POST', '/api/executions', ExecutionBody, { task }, write.idempotencyKey ?? crypto.randomUUID()))
        .execution,
    executions: (state) => call('GET', `/api/executions?state=${state}&include=attempts,owners`, ExecutionList),
    executionIds: async () =>
      (await call('GET', '/api/executions', ExecutionIds)).executions.map((execution) => execution.id),
    execution: async (id) => call('GET', executionPath(id), ExecutionWithAttempts),
    // The context's schema holds every event's: loaded for the first context asked, not with the client.
    context: async (id) =>
      call('GET', `${executionPath(id)}/context`, (await import('../execution/context-schema.js')).ExecutionContext),
    changes: async (id) => call('GET', `${executionPath(id)}/changes`, Changes),
    disk: async (id) => call('GET', `${executionPath(id)}/disk`, Disk),
    events: (id, handlers, from) =>
      openEventStream({
        url: `${url}${executionPath(id)}/events${from === undefined ? '' : `?from=${from}`}`,
        token: token.token,
        ...(handlers.retryMs !== undefined && { retryMs: handlers.retryMs }),
        onRecord: (record, eventId) => {
          const parsed = EventEnvelope.safeParse(record);
          if (parsed.success) handlers.onRecord(parsed.data, eventId);
          else handlers.onError?.(notARecord(record, eventId, parsed.error));
        },
        onConnected: (connected) => handlers.onConnected?.(connected),
        onEnd: () => handlers.onEnd?.(),
        onError: (error) => handlers.onError?.(streamError(error, { url, token })),
      }),
    send: async (id, text, write = {}) =>
      (
        await call(
          'POST',
          `${executionPath(id)}/messages`,
          z.object({ turn: Turn }),
          { text },
          write.idempotencyKey ?? crypto.randomUUID(),
        )
      ).turn,
    cancel: async (id) => (await call('POST', `${executionPath(id)}/cancel`, ExecutionBody)).execution,
    resume: async (id) => (await call('POST', `${executionPath(id)}/resume`, ExecutionBody)).execution,
    switchHarness: async (id, request) =>
      (await call('POST', `${executionPath(id)}/switch`, ExecutionBody, request)).execution,
    workflowRuns: async () => (await call('GET', '/api/workflows/runs', WorkflowRunList)).runs,
    workflowRun: async (id) => call('GET', `/api/workflows/runs/${requireRunId(id)}`, WorkflowRunWithSteps),
    admission: () => call('GET', '/api/admission', AdmissionStatus),
    hold: (reason) => call('POST', '/api/admission/hold', AdmissionStatus, { reason }),
    release: () => call('POST', '/api/admission/release', AdmissionStatus),
    stop: () => call('POST', '/api/stop', Stopping),
  };
}

/** The error for a streamed record that is not an event record's envelope. */
function notARecord(record: unknown, id: number, error: z.ZodError): MalformedEventError {
  const issues = z.prettifyError(error).replace(/\s*\n\s*/g, ' ');
  return new MalformedEventError(`record ${id} is not an event record: ${issues}`, JSON.stringify(record));
}

/**
 * The stream's error as the CLI names it: an answer that stopped the stream (an ApiError) becomes
 * the HarmflowError `errorFromResponse` maps its status to, or, for a 2xx that is not an event
 * stream, the error `call` gives an unexpected body. Other errors (malformed events, a lost
 * connection, which the stream retries) are already named: returned as they are.
 */
function streamError(error: Error, service: { readonly url: string; readonly token: ApiToken }): Error {
  if (!(error instanceof ApiError)) return error;
  if (error.status < 300) {
    return new HarmflowError(
      `the service at ${service.url} answered an event stream with something else (is it another HarmFlow version?): ${error.message}`,
      EXIT.internal,
    );
  }
  // apiErrorOf (src/web/api.ts) names an answer without the API's error body `HttpError`.
  const body = error.name === 'HttpError' ? undefined : { error: { name: error.name, message: error.message } };
  return errorFromResponse(error.status, body, service);
}

/** The JSON in `text`, or undefined when it is not JSON (then no schema matches it). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The error for a request that got no answer: nothing listening, a lost connection, or the timeout. */
function unreachable(url: string, route: string, timeoutMs: number, error: unknown): HarmflowError {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new ServiceUnavailableError(
      `the HarmFlow service at ${url} did not answer ${route} within ${timeoutMs / 1000}s`,
    );
  }
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if ((cause as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
    return new ServiceUnavailableError(
      `no HarmFlow service at ${url} (start one with \`harmflow serve\`, or give its URL: --url or HARMFLOW_URL)`,
    );
  }
  return new ServiceUnavailableError(`cannot reach the HarmFlow service at ${url}`, { cause });
}

/**
 * The named error for an API error answer, by status (clients branch on the status; the name
 * picks among the classes one status stands for). `body` is the parsed JSON, if any. An answer
 * without the API's error body is not from a HarmFlow service: ServiceUnavailableError.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  service: { readonly url: string; readonly token: ApiToken },
): HarmflowError {
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success) {
    return new ServiceUnavailableError(
      `${service.url} answered HTTP ${status} without a HarmFlow error body: is HARMFLOW_URL a HarmFlow service?`,
    );
  }
  const { name, message } = parsed.data.error;
  switch (status) {
    case 400:
      if (name === 'TaskFileError') return new TaskFileError(message);
      if (name === 'RepositoryError') return new RepositoryError(message);
      return new UsageError(message);
    case 401:
      return new UsageError(
        `the service at ${service.url} refused the API token from ${service.token.from}: ${message}`,
      );
    case 403:
      return new UsageError(`the service at ${service.url} refused the request: ${message}`);
    case 404:
      return new NotFoundError(message);
    case 409:
      return name === 'HarnessNotInstalledError' ? new HarnessNotInstalledError(message) : new ConflictError(message);
    case 413:
    case 422:
      return new UsageError(message);
    case 503:
      return new ServiceUnavailableError(message);
    default:
      return new HarmflowError(`the service failed (HTTP ${status} ${name}): ${message}`, EXIT.internal);
  }
}
