/**
 * The OpenCode `run --format json` parser: one stdout line → normalized events (formats in reference
 * note §3.3, checked against 1.18.33). Every line is `{type, timestamp, sessionID, …}`; the run emits
 * `step_start`, `text` (a finished text part, never a delta), `tool_use` (a tool part once completed
 * or failed), `step_finish` (usage of that step), `reasoning` (only with `--thinking`) and `error` (a
 * session error). Schemas sit at the edge with every field optional unless a mapping needs it, and
 * unknown keys pass through; a line that is not JSON or matches no schema becomes one `raw` event.
 *
 * OpenCode prints no final result line: a successful turn just ends (exit 0) after its last
 * `step_finish`. So this parser emits a `result` only for an `error` line, and the classifier decides
 * a success from the exit status and the events. One parser per turn: it remembers whether the
 * session id was reported and the last plan.
 */
import { z } from 'zod';
import { compact } from '../../core/compact.js';
import type { EventData, HarnessEvent } from '../../events/schema.js';
import type { LineParser } from '../adapter.js';
import { clipOutput, keepingRaw, parseAs, parseJsonLine, rawLine } from '../lines.js';

const num = z.number().nullish();
const str = z.string().nullish();

const Envelope = z.looseObject({ type: z.string(), sessionID: str, timestamp: num });
const TextLine = z.looseObject({ part: z.looseObject({ text: z.string() }) });
const ToolLine = z.looseObject({
  part: z.looseObject({
    tool: z.string(),
    callID: str,
    id: str,
    state: z.looseObject({
      status: str,
      input: z.unknown().optional(),
      output: str,
      error: str,
      metadata: z.looseObject({ exit: num }).nullish(),
    }),
  }),
});
const StepFinishLine = z.looseObject({
  part: z.looseObject({
    tokens: z.looseObject({ input: num, output: num, cache: z.looseObject({ read: num }).nullish() }).nullish(),
    cost: num,
  }),
});
const ErrorLine = z.looseObject({
  error: z.looseObject({
    name: str,
    data: z
      .looseObject({
        message: str,
        statusCode: num,
        responseBody: str,
        responseHeaders: z.record(z.string(), z.unknown()).nullish(),
      })
      .nullish(),
  }),
});

/** The error body of an OpenAI-style API and of OpenCode's own gateway (Zen / Go). */
const ErrorBody = z.looseObject({
  error: z.looseObject({ code: z.unknown().optional(), type: z.unknown().optional() }).nullish(),
  metadata: z.looseObject({ limitName: str }).nullish(),
});

const ShellInput = z.looseObject({ command: z.string() });
const FileInput = z.looseObject({ filePath: z.string() });
const PatchInput = z.looseObject({ patchText: z.string() });
const TodoInput = z.looseObject({ todos: z.array(z.looseObject({ content: z.string(), status: z.string() })) });

/** OpenCode's file tools that take one `filePath`. */
const FILE_TOOLS = new Set(['write', 'edit']);

/** `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** Move to: p` in an `apply_patch` text. */
const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/**
 * Provider error codes (OpenAI's `error.code` / `error.type`) and OpenCode gateway error types that
 * mean the account's quota or plan limit is spent, not a transient rate limit: OpenAI
 * `insufficient_quota`; OpenCode Zen/Go `FreeUsageLimitError` (its message is the same
 * `Rate limit exceeded. Please try again later.` as a transient limit, so only the type tells),
 * `GoUsageLimitError`, `BlackUsageLimitError` (429), `CreditsError`, `MonthlyLimitError`,
 * `UserLimitError` (401; types from the OpenCode console source).
 */
const ACCOUNT_LIMIT_CODES = new Set([
  'insufficient_quota',
  'FreeUsageLimitError',
  'GoUsageLimitError',
  'BlackUsageLimitError',
  'CreditsError',
  'MonthlyLimitError',
  'UserLimitError',
]);

type ResultData = Omit<EventData<'tool.result'>, 'id'>;
type PlanItem = EventData<'plan'>['items'][number];

function clipped(text: string | null | undefined): Pick<ResultData, 'output' | 'truncated'> {
  if (text === undefined || text === null) return {};
  const { output, truncated } = clipOutput(text);
  return truncated ? { output, truncated } : { output };
}

/** The files a tool call changes: `filePath` of write/edit, the file headers of an `apply_patch`. */
function filesOf(tool: string, input: unknown): string[] | undefined {
  if (FILE_TOOLS.has(tool)) return parseAs(FileInput, input, (data) => [data.filePath]);
  if (tool === 'apply_patch') {
    return parseAs(PatchInput, input, (data) => [
      ...new Set([...data.patchText.matchAll(PATCH_FILE)].map((match) => (match[1] ?? '').trim())),
    ]);
  }
  return undefined;
}

/**
 * OpenCode's todo statuses as work-item statuses. `cancelled` becomes `completed`: the item is closed
 * and nothing is left to do for it, which is what the next attempt needs to know.
 */
const TODO_STATUS: ReadonlyMap<string, PlanItem['status']> = new Map([
  ['pending', 'pending'],
  ['in_progress', 'in_progress'],
  ['completed', 'completed'],
  ['cancelled', 'completed'],
]);

/** OpenCode's todo list as work items; a status it may add later counts as `pending`. */
function planItems(input: unknown): PlanItem[] | undefined {
  return parseAs(TodoInput, input, (data) =>
    data.todos.map((todo) => ({ text: todo.content, status: TODO_STATUS.get(todo.status) ?? 'pending' })),
  );
}

/** Reads a `retry-after` header as an instant: `at` (epoch ms) plus its seconds, or its HTTP date. */
function retryAfterAt(headers: Record<string, unknown> | null | undefined, at: number): string | undefined {
  const value = headers?.['retry-after'];
  if (typeof value !== 'string') return undefined;
  const seconds = Number(value);
  const time = Number.isFinite(seconds) && value.trim() !== '' ? at + seconds * 1000 : Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** Creates a parser for one turn of `opencode run --format json` output. */
export function createOpencodeParser(): LineParser {
  let sessionReported = false;
  let lastPlan: string | undefined;

  const toolEvents = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(ToolLine, json, ({ part }): HarnessEvent[] | undefined => {
      const { state } = part;
      const id = part.callID ?? part.id;
      if (id === undefined || id === null) return undefined;
      const input = state.input ?? {};
      const shell = part.tool === 'bash' ? parseAs(ShellInput, input, (data) => data.command) : undefined;
      const exitCode = part.tool === 'bash' ? state.metadata?.exit : undefined;
      const events: HarnessEvent[] = [
        {
          type: 'tool.call',
          data: { id, name: part.tool, input, ...compact({ shell, files: filesOf(part.tool, input) }) },
        },
      ];
      const items = part.tool === 'todowrite' ? planItems(input) : undefined;
      if (items !== undefined) {
        // Every todowrite repeats the whole list; an unchanged list says nothing new.
        const key = JSON.stringify(items);
        if (key !== lastPlan) events.push({ type: 'plan', data: { items } });
        lastPlan = key;
      }
      // A bash command that exits non-zero is still a `completed` tool part; its exit code tells.
      const ok = state.status === 'completed' && (exitCode === undefined || exitCode === null || exitCode === 0);
      events.push({
        type: 'tool.result',
        data: { id, ok, ...compact({ exitCode }), ...clipped(state.output ?? state.error) },
      });
      return events;
    });

  const usageEvents = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(StepFinishLine, json, ({ part }): HarnessEvent[] => {
      // OpenCode's `input` excludes the cached tokens it reports under `cache.read`.
      const usage = compact({
        inputTokens: part.tokens?.input,
        outputTokens: part.tokens?.output,
        cachedInputTokens: part.tokens?.cache?.read,
        costUsd: part.cost,
      });
      return Object.keys(usage).length > 0 ? [{ type: 'usage', data: usage }] : [];
    });

  const errorEvents = (json: unknown, at: number | null | undefined): HarnessEvent[] | undefined =>
    parseAs(ErrorLine, json, ({ error }): HarnessEvent[] => {
      const data = error.data;
      const reported = data?.message ?? error.name ?? 'OpenCode reported an error';
      const body = parseAs(ErrorBody, parseJsonLine(data?.responseBody ?? ''), (parsed) => parsed);
      const limitCode = [body?.error?.code, body?.error?.type].find(
        (value): value is string => typeof value === 'string' && ACCOUNT_LIMIT_CODES.has(value),
      );
      // The code is what tells a spent quota from a transient limit when the words do not.
      const message = limitCode === undefined || reported.includes(limitCode) ? reported : `${reported} (${limitCode})`;
      const resetsAt = at !== undefined && at !== null ? retryAfterAt(data?.responseHeaders, at) : undefined;
      return [
        // The provider said this account's quota or plan limit is spent (Claude's adapter reads a
        // rejected limit the same way).
        ...(limitCode !== undefined
          ? [
              {
                type: 'rate_limit' as const,
                data: { status: 'rejected', ...compact({ window: body?.metadata?.limitName, resetsAt }) },
              },
            ]
          : []),
        { type: 'harness.error', data: { message, fatal: true } },
        { type: 'result', data: { ok: false, message, ...compact({ apiErrorStatus: data?.statusCode }) } },
      ];
    });

  const decode = (type: string, json: unknown, at: number | null | undefined): HarnessEvent[] | undefined => {
    switch (type) {
      case 'step_start':
      // Printed only with `--thinking`, which HarmFlow does not pass; thinking is not a message.
      case 'reasoning':
        return [];
      case 'text':
        return parseAs(TextLine, json, ({ part }): HarnessEvent[] => [{ type: 'message', data: { text: part.text } }]);
      case 'tool_use':
        return toolEvents(json);
      case 'step_finish':
        return usageEvents(json);
      case 'error':
        return errorEvents(json, at);
      default:
        return undefined;
    }
  };

  const parseLine = (line: string): HarnessEvent[] | undefined => {
    const json = parseJsonLine(line);
    const head = Envelope.safeParse(json);
    if (!head.success) return undefined;
    const { type, sessionID, timestamp } = head.data;
    const events = decode(type, json, timestamp);
    if (sessionReported || sessionID === undefined || sessionID === null) return events;
    // The first line that names the session reports it, whatever else it says.
    sessionReported = true;
    return [{ type: 'session.started', data: { sessionId: sessionID } }, ...(events ?? [rawLine(line)])];
  };

  return keepingRaw(parseLine);
}
