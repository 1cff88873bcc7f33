/**
 * The Claude Code stream-json parser: one stdout line → normalized events (formats in reference note
 * §3.3–3.4). Schemas sit at the edge with every field optional unless a mapping needs it, and unknown
 * keys pass through; a line that is not JSON or matches no schema becomes one `raw` event. One parser
 * per turn: it remembers tool names by tool_use id to read Bash exit codes from results.
 */
import { z } from 'zod';
import { compact } from '../../core/compact.js';
import type { HarnessEvent } from '../../events/schema.js';
import type { LineParser } from '../adapter.js';
import { clipOutput, isoFromEpochSeconds, keepingRaw, parseAs, parseJsonLine } from '../lines.js';

/** The model name Claude gives the assistant line it makes up for an API error (note §3.4). */
const SYNTHETIC_MODEL = '<synthetic>';

/** Claude's Bash tool result starts `Exit code N` when the command failed. */
const BASH_EXIT_CODE = /^Exit code (\d+)\b/;

/** Tools whose `file_path` input names the file they write. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** How alarming a rate-limit status is, to pick the window that matters. */
const STATUS_SEVERITY: Readonly<Record<string, number>> = { allowed: 1, allowed_warning: 2, rejected: 3 };

const num = z.number().nullish();
const str = z.string().nullish();

const Envelope = z.looseObject({ type: z.string(), subtype: z.string().optional() });
const Block = z.looseObject({ type: z.string() });

const Init = z.looseObject({ session_id: z.string(), model: str });
const ApiRetry = z.looseObject({ attempt: num, max_retries: num, retry_delay_ms: num, error_status: num, error: str });
const PermissionDenied = z.looseObject({ tool_name: str, message: z.string() });

const Assistant = z.looseObject({ message: z.looseObject({ model: str, content: z.array(Block) }) });
const TextBlock = z.looseObject({ text: z.string() });
const ToolUseBlock = z.looseObject({ id: z.string(), name: z.string(), input: z.unknown() });

const User = z.looseObject({ message: z.looseObject({ content: z.union([z.string(), z.array(Block)]) }) });
const ToolResultBlock = z.looseObject({
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(Block)]).nullish(),
  is_error: z.boolean().nullish(),
});

const RateWindow = z.looseObject({ status: str, resetsAt: num, utilization: num });
const RateLimitEvent = z.looseObject({
  rate_limit_info: z.looseObject({
    status: z.string(),
    resetsAt: num,
    rateLimitType: str,
    utilization: num,
    unifiedWindows: z.record(z.string(), RateWindow).nullish(),
  }),
});

const Result = z.looseObject({
  subtype: str,
  is_error: z.boolean().nullish(),
  result: str,
  errors: z.array(z.unknown()).nullish(),
  api_error_status: num,
  num_turns: num,
  duration_ms: num,
  total_cost_usd: num,
  usage: z.looseObject({ input_tokens: num, output_tokens: num, cache_read_input_tokens: num }).nullish(),
});

const ShellInput = z.looseObject({ command: z.string() });
const FileInput = z.looseObject({ file_path: z.string() });
const NotebookInput = z.looseObject({ notebook_path: z.string() });
const TodoInput = z.looseObject({
  todos: z.array(z.looseObject({ content: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) })),
});

type Block = z.infer<typeof Block>;

/** Returns the text of text parts, joined by newlines; a string content is returned as is. */
function contentText(content: string | readonly Block[]): string {
  if (typeof content === 'string') return content;
  return content
    .flatMap((part) => (part.type === 'text' ? (parseAs(TextBlock, part, (block) => [block.text]) ?? []) : []))
    .join('\n');
}

/** The file a file-writing tool call names, if any. */
function filesOf(name: string, input: unknown): string[] | undefined {
  if (!FILE_TOOLS.has(name)) return undefined;
  const path =
    parseAs(FileInput, input, (data) => data.file_path) ?? parseAs(NotebookInput, input, (data) => data.notebook_path);
  return path === undefined ? undefined : [path];
}

function system(subtype: string | undefined, json: unknown): HarnessEvent[] | undefined {
  switch (subtype) {
    case 'init':
      return parseAs(Init, json, (data) => [
        { type: 'session.started', data: { sessionId: data.session_id, ...compact({ model: data.model }) } },
      ]);
    case 'api_retry':
      return parseAs(ApiRetry, json, (data) => [
        {
          type: 'retry',
          data: compact({
            attempt: data.attempt,
            maxRetries: data.max_retries,
            delayMs: data.retry_delay_ms,
            reason: data.error,
            message: typeof data.error_status === 'number' ? `HTTP ${data.error_status}` : undefined,
          }),
        },
      ]);
    case 'permission_denied':
      return parseAs(PermissionDenied, json, (data) => [
        { type: 'warning', data: { message: data.tool_name ? `${data.tool_name}: ${data.message}` : data.message } },
      ]);
    default:
      return undefined;
  }
}

function rateLimit(json: unknown): HarnessEvent[] | undefined {
  return parseAs(RateLimitEvent, json, ({ rate_limit_info: info }) => {
    const severity = (status: string | null | undefined) => STATUS_SEVERITY[status ?? ''] ?? 0;
    // The window rateLimitType names; without one, the most alarming window.
    const [name, window] = info.rateLimitType
      ? [info.rateLimitType, info.unifiedWindows?.[info.rateLimitType]]
      : (Object.entries(info.unifiedWindows ?? {}).reduce<[string, z.infer<typeof RateWindow>] | undefined>(
          (worst, entry) =>
            worst === undefined || severity(entry[1].status) > severity(worst[1].status) ? entry : worst,
          undefined,
        ) ?? []);
    // The window's status says `allowed_warning` where the summary still says `allowed`: keep the worse.
    const status = window?.status && severity(window.status) > severity(info.status) ? window.status : info.status;
    const resetsAt = window?.resetsAt ?? info.resetsAt;
    return [
      {
        type: 'rate_limit',
        data: {
          status,
          ...compact({
            resetsAt: typeof resetsAt === 'number' ? isoFromEpochSeconds(resetsAt) : undefined,
            window: name,
            utilization: window?.utilization ?? info.utilization,
          }),
        },
      },
    ];
  });
}

function result(json: unknown): HarnessEvent[] | undefined {
  return parseAs(Result, json, (data) => {
    const errors = (data.errors ?? []).map((error) => (typeof error === 'string' ? error : JSON.stringify(error)));
    const message = data.result ? data.result : errors.length > 0 ? errors.join('; ') : undefined;
    const usage = compact({
      inputTokens: data.usage?.input_tokens,
      outputTokens: data.usage?.output_tokens,
      cachedInputTokens: data.usage?.cache_read_input_tokens,
      costUsd: data.total_cost_usd,
    });
    const events: HarnessEvent[] = Object.keys(usage).length > 0 ? [{ type: 'usage', data: usage }] : [];
    // API errors come as subtype "success" with is_error true (note §3.4): is_error decides.
    const ok = typeof data.is_error === 'boolean' ? !data.is_error : data.subtype === 'success';
    events.push({
      type: 'result',
      data: {
        ok,
        ...compact({
          message,
          apiErrorStatus: data.api_error_status,
          numTurns: data.num_turns,
          durationMs: data.duration_ms,
        }),
      },
    });
    return events;
  });
}

/** Creates a parser for one turn of Claude Code's `--output-format stream-json --verbose` output. */
export function createClaudeParser(): LineParser {
  const toolNames = new Map<string, string>();

  const toolCall = (block: z.infer<typeof ToolUseBlock>): HarnessEvent[] => {
    toolNames.set(block.id, block.name);
    const input = block.input ?? {};
    const shell = block.name === 'Bash' ? parseAs(ShellInput, input, (data) => data.command) : undefined;
    const events: HarnessEvent[] = [
      {
        type: 'tool.call',
        data: { id: block.id, name: block.name, input, ...compact({ shell, files: filesOf(block.name, input) }) },
      },
    ];
    if (block.name === 'TodoWrite') {
      const items = parseAs(TodoInput, input, (data) =>
        data.todos.map((todo) => ({ text: todo.content, status: todo.status })),
      );
      if (items !== undefined) events.push({ type: 'plan', data: { items } });
    }
    return events;
  };

  const assistant = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(Assistant, json, ({ message }) => {
      if (message.model === SYNTHETIC_MODEL) {
        // Claude's stand-in for an API error; the `result` line that follows carries the outcome.
        const text = contentText(message.content);
        return text === '' ? [] : [{ type: 'harness.error', data: { message: text, fatal: false } }];
      }
      const events: HarnessEvent[] = [];
      for (const block of message.content) {
        if (block.type === 'text') {
          const text = parseAs(TextBlock, block, (data) => data.text);
          if (text === undefined) return undefined;
          if (text !== '') events.push({ type: 'message', data: { text } });
        } else if (block.type === 'tool_use') {
          const calls = parseAs(ToolUseBlock, block, toolCall);
          if (calls === undefined) return undefined;
          events.push(...calls);
        }
        // thinking and other blocks carry nothing HarmFlow records.
      }
      return events;
    });

  const user = (json: unknown): HarnessEvent[] | undefined =>
    parseAs(User, json, ({ message }) => {
      if (typeof message.content === 'string') return [];
      const events: HarnessEvent[] = [];
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        const parsed = ToolResultBlock.safeParse(block);
        if (!parsed.success) return undefined;
        const { tool_use_id: id, content, is_error: isError } = parsed.data;
        const text = content === undefined || content === null ? undefined : contentText(content);
        const clipped = text === undefined ? undefined : clipOutput(text);
        const exitCode = toolNames.get(id) === 'Bash' ? text?.match(BASH_EXIT_CODE)?.[1] : undefined;
        events.push({
          type: 'tool.result',
          data: {
            id,
            ok: isError !== true,
            ...compact({
              exitCode: exitCode === undefined ? undefined : Number(exitCode),
              output: clipped?.output,
              truncated: clipped?.truncated === true ? true : undefined,
            }),
          },
        });
      }
      return events;
    });

  const parseLine = (line: string): HarnessEvent[] | undefined => {
    const json = parseJsonLine(line);
    const head = Envelope.safeParse(json);
    if (!head.success) return undefined;
    switch (head.data.type) {
      case 'system':
        return system(head.data.subtype, json);
      case 'assistant':
        return assistant(json);
      case 'user':
        return user(json);
      case 'rate_limit_event':
        return rateLimit(json);
      case 'result':
        return result(json);
      case 'stream_event':
        // Partial-message deltas (--include-partial-messages): the whole blocks follow as assistant lines.
        return [];
      default:
        return undefined;
    }
  };

  return keepingRaw(parseLine);
}
