/**
 * The Codex `exec --json` parser: one stdout line → normalized events (formats in reference note
 * §4.3, item shapes from the Codex TypeScript SDK's items.ts). Schemas sit at the edge with every
 * field optional unless a mapping needs it, and unknown keys pass through; a line that is not JSON or
 * matches no schema becomes one `raw` event. One parser per turn: it pairs item lifecycles into
 * tool.call / tool.result and keeps the last agent message for the turn's result.
 */
import { z } from 'zod';
import { compact } from '../../core/compact.js';
import type { EventData, HarnessEvent } from '../../events/schema.js';
import type { LineParser } from '../adapter.js';
import { clipOutput, keepingRaw, parseAs, parseJsonLine } from '../lines.js';
import { unwrapShell } from './shell-word.js';

/** `Reconnecting... 2/5 (…)`: Codex retrying a turn (note §4.4). */
const RECONNECTING = /^Reconnecting\.\.\.\s*(?:(\d+)\/(\d+))?/;

const num = z.number().nullish();
const str = z.string().nullish();

const Envelope = z.looseObject({ type: z.string() });
const ThreadStarted = z.looseObject({ thread_id: z.string() });
const ItemEvent = z.looseObject({ item: z.looseObject({ id: z.string(), type: z.string() }) });
const TopError = z.looseObject({ message: z.string() });
const TurnFailed = z.looseObject({ error: z.looseObject({ message: str }).nullish() });
const TurnCompleted = z.looseObject({
  usage: z.looseObject({ input_tokens: num, output_tokens: num, cached_input_tokens: num }).nullish(),
});

const CommandItem = z.looseObject({ command: z.string(), aggregated_output: str, exit_code: num, status: str });
const FileChangeItem = z.looseObject({ changes: z.array(z.looseObject({ path: z.string() })), status: str });
const McpToolCallItem = z.looseObject({
  server: z.string(),
  tool: z.string(),
  arguments: z.unknown(),
  result: z.looseObject({ content: z.array(z.unknown()).nullish() }).nullish(),
  error: z.looseObject({ message: z.string() }).nullish(),
  status: str,
});
const WebSearchItem = z.looseObject({ query: z.string() });
const AgentMessageItem = z.looseObject({ text: z.string() });
const TodoListItem = z.looseObject({ items: z.array(z.looseObject({ text: z.string(), completed: z.boolean() })) });
const ErrorItem = z.looseObject({ message: z.string() });
const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });

type Phase = 'item.started' | 'item.updated' | 'item.completed';
type Item = z.infer<typeof ItemEvent>['item'];
type CallData = Omit<EventData<'tool.call'>, 'id'>;
type ResultData = Omit<EventData<'tool.result'>, 'id'>;

/** How one item type reads as a tool call and, once completed, its result. */
interface ToolShape {
  call(item: Item): CallData | undefined;
  result(item: Item): ResultData | undefined;
}

function clipped(text: string | null | undefined): Pick<ResultData, 'output' | 'truncated'> {
  if (text === undefined || text === null) return {};
  const { output, truncated } = clipOutput(text);
  return truncated ? { output, truncated } : { output };
}

const TOOL_SHAPES: Readonly<Record<string, ToolShape>> = {
  command_execution: {
    call: (item) =>
      parseAs(CommandItem, item, (data) => ({
        name: 'shell',
        input: { command: data.command },
        shell: unwrapShell(data.command),
      })),
    result: (item) =>
      parseAs(CommandItem, item, (data) => ({
        ok: data.exit_code === 0,
        ...compact({ exitCode: data.exit_code }),
        ...clipped(data.aggregated_output),
      })),
  },
  file_change: {
    call: (item) =>
      parseAs(FileChangeItem, item, (data) => ({
        name: 'apply_patch',
        input: { changes: data.changes },
        files: data.changes.map((change) => change.path),
      })),
    result: (item) => parseAs(FileChangeItem, item, (data) => ({ ok: data.status === 'completed' })),
  },
  mcp_tool_call: {
    // Named like Claude Code names MCP tools, so gates and readers see one convention.
    call: (item) =>
      parseAs(McpToolCallItem, item, (data) => ({
        name: `mcp__${data.server}__${data.tool}`,
        input: data.arguments ?? {},
      })),
    result: (item) =>
      parseAs(McpToolCallItem, item, (data) => {
        const text = (data.result?.content ?? [])
          .flatMap((part) => parseAs(TextPart, part, (block) => [block.text]) ?? [])
          .join('\n');
        return {
          ok: data.status === 'completed' && !data.error,
          ...clipped(data.error?.message ?? (text === '' ? undefined : text)),
        };
      }),
  },
  web_search: {
    call: (item) => parseAs(WebSearchItem, item, (data) => ({ name: 'web_search', input: { query: data.query } })),
    result: () => ({ ok: true }),
  },
};

/** Creates a parser for one turn of `codex exec --json` output. */
export function createCodexParser(): LineParser {
  /** Tool items started and not yet completed: `type id` → the id their events carry. */
  const open = new Map<string, string>();
  /** How many tool calls used each Codex item id: ids like `item_0` recur within one turn. */
  const uses = new Map<string, number>();
  let lastMessage: string | undefined;
  let lastError: string | undefined;
  let lastPlan: string | undefined;

  const toolEvents = (phase: Phase, item: Item, shape: ToolShape): HarnessEvent[] | undefined => {
    const key = `${item.type} ${item.id}`;
    const events: HarnessEvent[] = [];
    let id = open.get(key);
    if (id === undefined) {
      const call = shape.call(item);
      if (call === undefined) return undefined;
      const count = (uses.get(item.id) ?? 0) + 1;
      uses.set(item.id, count);
      id = count === 1 ? item.id : `${item.id}#${count}`;
      open.set(key, id);
      events.push({ type: 'tool.call', data: { id, ...call } });
    }
    if (phase === 'item.completed') {
      const result = shape.result(item);
      if (result === undefined) return undefined;
      open.delete(key);
      events.push({ type: 'tool.result', data: { id, ...result } });
    }
    return events;
  };

  const itemEvents = (phase: Phase, item: Item): HarnessEvent[] | undefined => {
    const shape = TOOL_SHAPES[item.type];
    if (shape !== undefined) return toolEvents(phase, item, shape);
    switch (item.type) {
      case 'agent_message':
        // The text is final only on completion.
        return parseAs(AgentMessageItem, item, (data): HarnessEvent[] => {
          if (phase !== 'item.completed') return [];
          lastMessage = data.text;
          return [{ type: 'message', data: { text: data.text } }];
        });
      case 'todo_list':
        return parseAs(TodoListItem, item, (data): HarnessEvent[] => {
          const current = data.items.findIndex((todo) => !todo.completed);
          const items = data.items.map((todo, index) => ({
            text: todo.text,
            status: todo.completed
              ? ('completed' as const)
              : index === current
                ? ('in_progress' as const)
                : ('pending' as const),
          }));
          // started / updated / completed repeat the list; an unchanged list says nothing new.
          const key = JSON.stringify(items);
          if (key === lastPlan) return [];
          lastPlan = key;
          return [{ type: 'plan', data: { items } }];
        });
      case 'error':
        // A non-fatal warning (unknown model metadata, model mismatch on resume): never the end of a run.
        return parseAs(ErrorItem, item, (data): HarnessEvent[] =>
          phase === 'item.completed' ? [{ type: 'warning', data: { message: data.message } }] : [],
        );
      case 'reasoning':
        return [];
      default:
        return undefined;
    }
  };

  const topError = (message: string): HarnessEvent[] => {
    lastError = message;
    const events: HarnessEvent[] = [{ type: 'harness.error', data: { message, fatal: false } }];
    const reconnecting = message.match(RECONNECTING);
    if (reconnecting !== null) {
      const [, attempt, maxRetries] = reconnecting;
      events.push({
        type: 'retry',
        data: {
          ...(attempt !== undefined && { attempt: Number(attempt) }),
          ...(maxRetries !== undefined && { maxRetries: Number(maxRetries) }),
          message,
        },
      });
    }
    return events;
  };

  const parseLine = (line: string): HarnessEvent[] | undefined => {
    const json = parseJsonLine(line);
    const head = Envelope.safeParse(json);
    if (!head.success) return undefined;
    const type = head.data.type;
    switch (type) {
      case 'thread.started':
        return parseAs(ThreadStarted, json, (data): HarnessEvent[] => [
          { type: 'session.started', data: { sessionId: data.thread_id } },
        ]);
      case 'turn.started':
        return [];
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        return parseAs(ItemEvent, json, (data) => itemEvents(type, data.item));
      case 'error':
        return parseAs(TopError, json, (data) => topError(data.message));
      case 'turn.failed':
        return parseAs(TurnFailed, json, (data): HarnessEvent[] => {
          const message = data.error?.message ?? lastError ?? 'turn failed';
          return [
            { type: 'harness.error', data: { message, fatal: true } },
            { type: 'result', data: { ok: false, message } },
          ];
        });
      case 'turn.completed':
        return parseAs(TurnCompleted, json, (data): HarnessEvent[] => {
          const usage = compact({
            inputTokens: data.usage?.input_tokens,
            outputTokens: data.usage?.output_tokens,
            cachedInputTokens: data.usage?.cached_input_tokens,
          });
          return [
            ...(Object.keys(usage).length > 0 ? [{ type: 'usage' as const, data: usage }] : []),
            { type: 'result', data: { ok: true, ...compact({ message: lastMessage }) } },
          ];
        });
      default:
        return undefined;
    }
  };

  return keepingRaw(parseLine);
}
