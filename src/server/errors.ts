/**
 * How the API reports errors: every error is JSON `{"error":{"name","message"}}` with a fitting
 * status. HTTP-level refusals (401, 403, 413) are `HttpError`s named after their
 * status; HarmFlow's own named errors keep their class name and map to a status here, in one place.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  ConflictError,
  describeError,
  HarmflowError,
  HarnessNotInstalledError,
  NotFoundError,
  RepositoryError,
  ServiceUnavailableError,
  TaskFileError,
  UsageError,
} from '../core/errors.js';
import { IdempotencyKeyReusedError } from '../service/execution-service.js';

/** A refusal at the HTTP level: `name` is what the client sees (e.g. `Unauthorized`). */
export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  constructor(status: ContentfulStatusCode, name: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
    this.status = status;
  }
}

/** The names of the HTTP-level errors, by status. */
const STATUS_NAMES: Readonly<Partial<Record<number, string>>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  503: 'Unavailable',
};

/** The status for each of HarmFlow's named errors; any other HarmflowError is a 500. */
const HARMFLOW_STATUSES: ReadonlyArray<readonly [new (...args: never[]) => HarmflowError, ContentfulStatusCode]> = [
  [NotFoundError, 404],
  [UsageError, 400],
  [TaskFileError, 400],
  [RepositoryError, 400],
  // The request is fine but this server cannot run it until the CLI is installed.
  [HarnessNotInstalledError, 409],
  [ConflictError, 409],
  [ServiceUnavailableError, 503],
  // The IETF draft's status for a key reused with another request (draft-ietf-httpapi-idempotency-key-header).
  [IdempotencyKeyReusedError, 422],
];

/** Returns the status a HarmflowError maps to. */
export function statusOf(error: HarmflowError): ContentfulStatusCode {
  return HARMFLOW_STATUSES.find(([type]) => error instanceof type)?.[1] ?? 500;
}

/** Renders an error body with `status`. */
export function errorResponse(c: Context, status: ContentfulStatusCode, name: string, message: string): Response {
  return c.json({ error: { name, message } }, status);
}

/** The app's `onError`: renders any thrown error as the JSON error body. */
export function handleError(error: Error, c: Context): Response {
  if (error instanceof HttpError) {
    const response = errorResponse(c, error.status, error.name, error.message);
    if (error.status === 401) response.headers.set('WWW-Authenticate', 'Bearer realm="harmflow"');
    return response;
  }
  if (error instanceof HarmflowError) return errorResponse(c, statusOf(error), error.name, describeError(error));
  if (error instanceof HTTPException) {
    const status = error.status as ContentfulStatusCode;
    return errorResponse(c, status, STATUS_NAMES[status] ?? 'HttpError', error.message || `status ${status}`);
  }
  return errorResponse(c, 500, 'InternalError', describeError(error));
}

/** The app's `notFound`: a route that does not exist. */
export function handleNotFound(c: Context): Response {
  return errorResponse(c, 404, 'NotFound', `no route ${c.req.method} ${c.req.path}`);
}

/** Returns an HttpError whose name follows from its status. */
export function httpError(status: ContentfulStatusCode, message: string): HttpError {
  return new HttpError(status, STATUS_NAMES[status] ?? 'HttpError', message);
}
