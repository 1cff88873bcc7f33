/**
 * The Workbench's client of HarmFlow's JSON API (docs/api.md): `get` and `post` an API path such as
 * `/api/executions?state=live` with `Authorization: Bearer <token>` (or, given no token, with what
 * the browser sends by itself: the session cookie, src/server/session-cookie.ts), and resolve with the parsed JSON
 * of a 2xx answer, as `unknown`: the caller checks its shape. Any other answer rejects with an
 * `ApiError` carrying the status and the `{error:{name,message}}` the API sends, or the status text
 * when the body is not that shape. A request that gets no answer rejects with fetch's own error.
 *
 * The caller owns the token and hands it in; it is only ever sent in the header, never in a URL. The
 * Workbench's pages give none: their browser holds the session cookie instead (dom/session.ts). Stateless: each call is one request, nothing to close.
 * No Node, no DOM: it runs in the browser and in Node (which has fetch).
 */

/** The part of `fetch` this client and the event stream use; the global one unless a caller gives another. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export interface ApiOptions {
  /** Where the service is, e.g. `http://127.0.0.1:7878`; `''` in a page the service serves (same origin). */
  readonly baseUrl: string;
  /** The bearer token; without it, no `Authorization` (a page's same-origin requests carry the session cookie). */
  readonly token?: string;
  readonly fetch?: Fetch;
}

export interface Api {
  /** `GET path`; resolves with the answer's JSON. */
  get(path: string): Promise<unknown>;
  /**
   * `POST path` with `body` as JSON (no body when undefined) and `headers` besides the client's own
   * (an `Idempotency-Key`, say); resolves with the answer's JSON.
   */
  post(path: string, body?: unknown, headers?: Readonly<Record<string, string>>): Promise<unknown>;
}

/** An answer that is not a 2xx: `name` and `message` are the API's (e.g. 404 `NotFoundError`). */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, name: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
    this.status = status;
  }
}

/** A client of the API at `options.baseUrl`. */
export function createApi(options: ApiOptions): Api {
  const base = options.baseUrl.replace(/\/+$/, '');
  // Called as a plain function: a browser's fetch called as a method of another object throws.
  const send: Fetch = options.fetch ?? ((url, init) => fetch(url, init));
  const request = async (
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    extra: Readonly<Record<string, string>> = {},
  ): Promise<unknown> => {
    if (!path.startsWith('/')) throw new TypeError(`an API path starts with "/": ${JSON.stringify(path)}`);
    const headers: Record<string, string> = { ...extra, accept: 'application/json' };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await send(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw await apiErrorOf(response);
    const text = await response.text();
    if (text === '') return null;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ApiError(
        response.status,
        'InvalidResponse',
        `${method} ${path} answered with a body that is not JSON`,
        {
          cause: error,
        },
      );
    }
  };
  return {
    get: (path) => request('GET', path, undefined),
    post: (path, body, headers) => request('POST', path, body, headers),
  };
}

/** The ApiError for a non-2xx `response`, reading its body. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  const body = errorBody(text);
  if (body !== undefined) return new ApiError(response.status, body.name, body.message);
  return new ApiError(response.status, 'HttpError', response.statusText || `HTTP ${response.status}`);
}

/** The API's `{error:{name,message}}` in `text`, or undefined when `text` is not that. */
function errorBody(text: string): { name: string; message: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || !isObject(parsed.error)) return undefined;
  const { name, message } = parsed.error;
  return typeof name === 'string' && typeof message === 'string' ? { name, message } : undefined;
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
