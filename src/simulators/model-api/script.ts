/**
 * Scripts of the model-API simulator: what a script's main requests are answered with, in order.
 * A script is an ordered list of replies; each main request to it takes the next reply and the last
 * one repeats. A `rateLimit` reply answers `times` requests before the script moves on. A
 * `limitWarning` reply is a text reply whose response says the subscription's five-hour window is
 * nearly used (`utilization`); only the Anthropic side, to an OAuth token, has a way to say it. The
 * scripts file (`harmflow sim-api --script`) is YAML, or JSON when its name ends in `.json`, validated
 * strictly: an unknown key or a reply with two kinds is an error naming its place.
 * docs/model-api-simulator.md is the reference.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** A scripts file that cannot be read, parsed or validated. The message is one line. */
export class ScriptError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScriptError';
  }
}

/** The error replies; each is the provider's own status, headers and body for that condition. */
const ERROR_KINDS = ['quota', 'rateLimit', 'overload', 'serverError', 'authError'] as const;

/** One reply, tagged by its kind. `inStream`: the error comes inside an HTTP 200 stream. */
export type Reply =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'limitWarning'; readonly text: string; readonly utilization: number }
  | { readonly kind: 'write'; readonly path: string; readonly content: string }
  | { readonly kind: 'shell'; readonly command: string }
  | { readonly kind: 'quota' | 'overload' | 'serverError' | 'authError'; readonly inStream: boolean }
  | { readonly kind: 'rateLimit'; readonly times: number; readonly retryAfter?: number; readonly inStream: boolean };

const REPLY_KEYS = ['text', 'limitWarning', 'write', 'shell', ...ERROR_KINDS] as const;

const errorOptions = z.strictObject({ inStream: z.boolean().optional() });

/** `true` or `{inStream}`: the options of an error reply (each form validated on its own, for a clear message). */
const errorFlag = z.unknown().transform((value, ctx) => {
  if (value === true) return { inStream: false };
  if (typeof value !== 'object' || value === null) {
    ctx.addIssue({ code: 'custom', message: 'expected true or {inStream: boolean}' });
    return z.NEVER;
  }
  const parsed = errorOptions.safeParse(value);
  if (parsed.success) return { inStream: parsed.data.inStream === true };
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

const replyFields = z
  .strictObject({
    text: z.string().min(1).optional(),
    limitWarning: z.strictObject({ text: z.string().min(1), utilization: z.number().min(0).max(1) }).optional(),
    write: z.strictObject({ path: z.string().min(1), content: z.string() }).optional(),
    shell: z.strictObject({ command: z.string().min(1) }).optional(),
    quota: errorFlag.optional(),
    rateLimit: z
      .strictObject({
        times: z.int().min(1),
        retryAfter: z.number().min(0).optional(),
        inStream: z.boolean().optional(),
      })
      .optional(),
    overload: errorFlag.optional(),
    serverError: errorFlag.optional(),
    authError: errorFlag.optional(),
  })
  .refine((reply) => Object.keys(reply).length === 1, {
    message: `a reply has exactly one of: ${REPLY_KEYS.join(', ')}`,
    when: (payload) => payload.issues.length === 0,
  });

function toReply(reply: z.output<typeof replyFields>): Reply {
  if (reply.text !== undefined) return { kind: 'text', text: reply.text };
  if (reply.limitWarning !== undefined) return { kind: 'limitWarning', ...reply.limitWarning };
  if (reply.write !== undefined) return { kind: 'write', ...reply.write };
  if (reply.shell !== undefined) return { kind: 'shell', command: reply.shell.command };
  if (reply.rateLimit !== undefined) {
    const { times, retryAfter, inStream } = reply.rateLimit;
    return { kind: 'rateLimit', times, ...(retryAfter !== undefined && { retryAfter }), inStream: inStream === true };
  }
  for (const kind of ['quota', 'overload', 'serverError', 'authError'] as const) {
    const flag = reply[kind];
    if (flag !== undefined) return { kind, inStream: flag.inStream };
  }
  throw new Error('unreachable: the refinement admits exactly one key');
}

const replyText = z.string().min(1);

/**
 * A reply as written: an object with one key, or a bare string for `{text}`. Each form is validated
 * on its own, so an error names the real problem instead of zod's "Invalid input" for a union.
 */
const ReplyInput = z
  .union([z.string(), z.record(z.string(), z.unknown())], { error: 'a reply is a string or an object with one key' })
  .transform((value, ctx): Reply => {
    const parsed = typeof value === 'string' ? replyText.safeParse(value) : replyFields.safeParse(value);
    if (parsed.success)
      return typeof parsed.data === 'string' ? { kind: 'text', text: parsed.data } : toReply(parsed.data);
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });

/** A script name is one URL path segment. */
const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Scripts by name, each a non-empty list of replies. */
const Scripts = z.record(z.string(), z.array(ReplyInput).min(1)).superRefine((scripts, ctx) => {
  for (const name of Object.keys(scripts)) {
    if (!SCRIPT_NAME.test(name)) {
      ctx.addIssue({
        code: 'custom',
        message: 'a script name uses letters, digits, ".", "_" or "-" (at most 64)',
        path: [name],
      });
    }
  }
});
export type ScriptsData = z.output<typeof Scripts>;

type ErrorFlag = true | { readonly inStream?: boolean };

/** A reply as written in code or in a scripts file; `Reply` is what it is validated into. */
export type ReplySpec =
  | string
  | { readonly text: string }
  | { readonly limitWarning: { readonly text: string; readonly utilization: number } }
  | { readonly write: { readonly path: string; readonly content: string } }
  | { readonly shell: { readonly command: string } }
  | { readonly quota: ErrorFlag }
  | { readonly rateLimit: { readonly times: number; readonly retryAfter?: number; readonly inStream?: boolean } }
  | { readonly overload: ErrorFlag }
  | { readonly serverError: ErrorFlag }
  | { readonly authError: ErrorFlag };

/** Scripts by name, as written. */
export type ScriptsSpec = Readonly<Record<string, readonly ReplySpec[]>>;

/** Validates scripts given in code or read from a file; throws ScriptError naming each problem's place. */
export function parseScripts(data: unknown, source: string): ScriptsData {
  const parsed = Scripts.safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.join('.') || '(top level)';
    return `${where}: ${issue.message}`;
  });
  throw new ScriptError(`${source} is invalid: ${problems.join('; ')}`);
}

/**
 * Reads a scripts file (`scripts:` mapping names to replies) and validates it; returns the scripts as
 * written, for `startModelApi`. Throws ScriptError.
 */
export async function loadScriptsFile(path: string): Promise<ScriptsSpec> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScriptError(`cannot read scripts file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ScriptError(`scripts file ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}`, {
      cause: error,
    });
  }
  const file = z.strictObject({ scripts: z.unknown() }).safeParse(data);
  if (!file.success) throw new ScriptError(`scripts file ${path} must be a mapping with one key, "scripts"`);
  parseScripts(file.data.scripts, `scripts file ${path}`);
  // Validated just above: the data has the shape ScriptsSpec describes.
  return file.data.scripts as ScriptsSpec;
}

/**
 * The position in one script. Owned by the server, one per script; `next` is called once per main
 * request, in arrival order (Node's single thread keeps it consistent across concurrent requests).
 */
export class ScriptCursor {
  private index = 0;
  /** How many requests the current `rateLimit` reply has answered. */
  private answered = 0;

  constructor(private readonly replies: readonly Reply[]) {}

  /** Returns the reply for the next main request and its index, and moves on. */
  next(): { readonly index: number; readonly reply: Reply } {
    const index = this.index;
    const reply = this.replies[index];
    if (reply === undefined) throw new Error('a script has at least one reply');
    if (reply.kind === 'rateLimit') {
      this.answered++;
      if (this.answered < reply.times) return { index, reply };
    }
    this.answered = 0;
    if (index < this.replies.length - 1) this.index++;
    return { index, reply };
  }
}
