/**
 * The Gemini CLI stream-json parser: one stdout line → normalized events (formats in reference note
 * §2.3, checked against real runs of 0.61.0). Schemas sit at the edge with every field optional
 * unless a mapping needs it, and unknown keys pass through; a line that is not JSON or matches no
 * schema becomes one `raw` event. One parser per turn, and it keeps state across lines:
 *
 * - Assistant text arrives as `delta` chunks. They are joined, and the whole text becomes one
 *   `message` event when the next recognized non-message line (tool_use, tool_result, error, result)
 *   arrives: Gemini streams a model response's text before its tool calls, and a turn always ends
 *   with `result`, so every message is complete by then. Text still pending when the process dies
 *   without a `result` is lost (the stream gives no other end of a message).
 * - A `write_todos` call becomes a `plan` only once its tool_result reports success: Gemini
 *   validates the list first (known statuses, one `in_progress` at most) and rejects a bad one.
 * - The models a turn really used are the keys of `result.stats.models` (`init.model` is the model
 *   asked for, e.g. `auto`); the one with the most tokens is reported by a second
 *   `session.started` when it differs from what `init` said.
 */
import { z } from 'zod';
import { compact } from '../../core/compact.js';
import type { EventData, HarnessEvent, WorkItemStatus } from '../../events/schema.js';
import type { LineParser } from '../adapter.js';
import { clipOutput, keepingRaw, parseAs, parseJsonLine } from '../lines.js';

/** The shell tool; its `command` parameter is the command line the model ran. */
const SHELL_TOOL = 'run_shell_command';

/** The todo tool (`{todos: [{description, status}]}`, from the 0.61.0 bundle's write-todos.ts). */
const TODO_TOOL = 'write_todos';

/** Tools whose `file_path` parameter names the file they write (`replace` is Gemini's edit tool). */
const FILE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'replace']);

/**
 * Gemini's todo statuses as work-item statuses. `cancelled` → completed: no work is left on it, and
 * a next harness must not take it up. `blocked` → pending: the work is still to do, and only one
 * item may be `in_progress` (Gemini enforces that too).
 */
const TODO_STATUS = {
  pending: 'pending',
  in_progress: 'in_progress',
  completed: 'completed',
  cancelled: 'completed',
  blocked: 'pending',
} as const satisfies Record<string, WorkItemStatus>;

/**
 * What the shell tool shows for a command that failed without printing anything (its `returnDisplay`
 * in the bundle's shell.ts). A command that printed output shows only the output, with status
 * `success` whatever its exit code: stream-json does not carry that exit code.
 */
const SHELL_EXIT = /^Command exited with code: (-?\d+)\s*$/;
const SHELL_KILLED = /^Command (terminated by signal|was automatically cancelled|cancelled by user)/;

const num = z.number().nullish();
const str = z.string().nullish();

const Envelope = z.looseObject({ type: z.string() });
const Init = z.looseObject({ session_id: z.string(), model: str });
const Message = z.looseObject({ role: str, content: str, delta: z.boolean().nullish() });
const ToolUse = z.looseObject({ tool_name: z.string(), tool_id: z.string(), parameters: z.unknown() });
const ErrorShape = z.looseObject({ type: str, message: str });
const ToolResult = z.looseObject({ tool_id: z.string(), status: str, output: str, error: ErrorShape.nullish() });
const ErrorEvent = z.looseObject({ severity: str, message: z.string() });
const ModelStats = z.looseObject({ total_tokens: num });
const Result = z.looseObject({
  status: str,
  error: ErrorShape.nullish(),
  stats: z
    .looseObject({
      input_tokens: num,
      output_tokens: num,
      cached: num,
      duration_ms: num,
      models: z.record(z.string(), ModelStats).nullish(),
    })
    .nullish(),
});

const ShellInput = z.looseObject({ command: z.string() });
const FileInput = z.looseObject({ file_path: z.string() });
const TodoInput = z.looseObject({
  todos: z.array(
    z.looseObject({
      description: z.string(),
      status: z.enum(['pending', 'in_progress', 'completed', 'cancelled', 'blocked']),
    }),
  ),
});

type PlanItems = EventData<'plan'>['items'];
type Stats = NonNullable<z.infer<typeof Result>['stats']>;

/** The model that did most of a turn's work: the `stats.models` key with the most tokens, if any used any. */
function mainModel(stats: Stats | null | undefined): string | undefined {
  let best: [string, number] | undefined;
  for (const [model, usage] of Object.entries(stats?.models ?? {})) {
    const tokens = usage.total_tokens ?? 0;
    if (tokens > 0 && (best === undefined || tokens > best[1])) best = [model, tokens];
  }
  return best?.[0];
}

function planOf(input: unknown): PlanItems | undefined {
  return parseAs(TodoInput, input, (data) =>
    data.todos.map((todo) => ({ text: todo.description, status: TODO_STATUS[todo.status] })),
  );
}

function usageOf(stats: Stats | null | undefined): HarnessEvent[] {
  const usage = compact({
    inputTokens: stats?.input_tokens,
    outputTokens: stats?.output_tokens,
    cachedInputTokens: stats?.cached,
  });
  // No cost: Gemini reports none.
  return Object.keys(usage).length > 0 ? [{ type: 'usage', data: usage }] : [];
}

/** Creates a parser for one turn of Gemini's `--output-format stream-json` output. */
export function createGeminiParser(): LineParser {
  const toolNames = new Map<string, string>();
  /** write_todos lists by tool id, waiting for their tool_result. */
  const plans = new Map<string, PlanItems>();
  let pending = '';
  let lastText: string | undefined;
  let lastError: string | undefined;
  let session: { id: string; model: string | undefined } | undefined;

  /** Ends the assistant message being streamed, if any. */
  const flush = (): HarnessEvent[] => {
    const text = pending;
    pending = '';
    if (text.trim() === '') return [];
    lastText = text;
    return [{ type: 'message', data: { text } }];
  };

  const message = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(Message, json, (data): HarnessEvent[] => {
      // The user's prompt is echoed back; HarmFlow knows it already.
      if (data.role !== 'assistant') return [];
      pending += data.content ?? '';
      // A whole (non-delta) message, which 0.61.0 never sent, ends at once.
      return data.delta === true ? [] : flush();
    });

  const toolUse = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(ToolUse, json, ({ tool_name: name, tool_id: id, parameters }): HarnessEvent[] => {
      toolNames.set(id, name);
      const input = parameters ?? {};
      const shell = name === SHELL_TOOL ? parseAs(ShellInput, input, (data) => data.command) : undefined;
      const file = FILE_TOOLS.has(name) ? parseAs(FileInput, input, (data) => data.file_path) : undefined;
      if (name === TODO_TOOL) {
        const items = planOf(input);
        if (items !== undefined) plans.set(id, items);
      }
      return [
        ...flush(),
        {
          type: 'tool.call',
          data: { id, name, input, ...compact({ shell, files: file === undefined ? undefined : [file] }) },
        },
      ];
    });

  const toolResult = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(ToolResult, json, (data) => {
      const text = data.output ?? data.error?.message ?? undefined;
      let ok = data.status === 'success';
      let exitCode: number | undefined;
      if (toolNames.get(data.tool_id) === SHELL_TOOL && text !== undefined) {
        const exit = text.match(SHELL_EXIT)?.[1];
        if (exit !== undefined) exitCode = Number(exit);
        if (exit !== undefined || SHELL_KILLED.test(text)) ok = false;
      }
      const clipped = text === undefined ? undefined : clipOutput(text);
      const events: HarnessEvent[] = [
        ...flush(),
        {
          type: 'tool.result',
          data: {
            id: data.tool_id,
            ok,
            ...compact({
              exitCode,
              output: clipped?.output,
              truncated: clipped?.truncated === true ? true : undefined,
            }),
          },
        },
      ];
      const items = plans.get(data.tool_id);
      plans.delete(data.tool_id);
      if (items !== undefined && ok) events.push({ type: 'plan', data: { items } });
      return events;
    });

  const error = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(ErrorEvent, json, ({ severity, message }): HarnessEvent[] => {
      // Loop detection, blocked execution, turn limits, invalid streams (note §2.3); `result` decides.
      const ended = flush();
      if (severity !== 'error') return [...ended, { type: 'warning', data: { message } }];
      lastError = message;
      return [...ended, { type: 'harness.error', data: { message, fatal: false } }];
    });

  const result = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(Result, json, (data) => {
      const events = flush();
      const model = mainModel(data.stats);
      if (session !== undefined && model !== undefined && model !== session.model) {
        session.model = model;
        events.push({ type: 'session.started', data: { sessionId: session.id, model } });
      }
      events.push(...usageOf(data.stats));
      const ok = data.status === 'success';
      // An invalid stream ends with an error result that has no `error`: the error event said why.
      const message = ok ? lastText : (data.error?.message ?? lastError ?? undefined);
      events.push({
        type: 'result',
        data: { ok, ...compact({ message, durationMs: data.stats?.duration_ms }) },
      });
      return events;
    });

  const init = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(Init, json, (data): HarnessEvent[] => {
      session = { id: data.session_id, model: data.model ?? undefined };
      return [
        ...flush(),
        { type: 'session.started', data: { sessionId: data.session_id, ...compact({ model: data.model }) } },
      ];
    });

  // Each handler ends the pending message only once its line is recognized: a raw line keeps it pending.
  const parseLine = (line: string): HarnessEvent[] | undefined => {
    const json = parseJsonLine(line);
    const head = Envelope.safeParse(json);
    if (!head.success) return undefined;
    switch (head.data.type) {
      case 'init':
        return init(json);
      case 'message':
        return message(json);
      case 'tool_use':
        return toolUse(json);
      case 'tool_result':
        return toolResult(json);
      case 'error':
        return error(json);
      case 'result':
        return result(json);
      default:
        return undefined;
    }
  };

  return keepingRaw(parseLine);
}
