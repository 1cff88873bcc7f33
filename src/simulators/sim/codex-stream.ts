/**
 * Codex 0.171.0's `exec --json` lines, as recorded in shared/reference/harnesses/claude-code-and-codex.md
 * §4.3–4.4 and as its JSONL mapper (codex-rs/exec/src/event_processor_with_jsonl_output.rs) orders
 * them: `thread.started`, `turn.started`; items numbered `item_0`, `item_1`, … in order of first
 * appearance (`item.started` / `item.completed` share an id; an agent_message has only
 * `item.completed`); the plan is one `todo_list` item, started once, then `item.updated`, and completed
 * just before the turn ends; fatal errors as a top-level `error` line then `turn.failed`; transient ones
 * as `Reconnecting... n/N (…)` error lines. Token counts are synthetic; Codex reports no cost, and no
 * line names the model (so `-m` changes nothing here).
 */

import { shellQuote } from '../../core/shell-words.js';
import { openaiRequestId } from './ids.js';
import { codexResetText } from './reset-time.js';
import type { PlanItem } from './scenario.js';
import type { AgentStream, EndingOutput, FinalEnding, ToolCall, ToolLines } from './stream.js';

/** Codex's default `stream_max_retries` (reference §4.4): the `n/5` of its `Reconnecting...` lines. */
export const CODEX_DEFAULT_STREAM_MAX_RETRIES = 5;

/** Synthetic usage: 200 input tokens per model call (the recorded 2-call run reported 400). */
const INPUT_TOKENS_PER_CALL = 200;

/** Printed on stderr by every `codex exec` run (reference §4.3). */
const STDIN_NOTICE = 'Reading additional input from stdin...';

const USAGE_LIMIT =
  'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at';

export interface CodexStreamOptions {
  readonly threadId: string;
  /** How many `Reconnecting... n/N` lines precede a transient failure. */
  readonly streamMaxRetries: number;
}

/** Prints Codex's `exec --json` lines for one run. */
export class CodexStream implements AgentStream {
  readonly sessionId: string;
  private readonly options: CodexStreamOptions;
  private nextItem = 0;
  private todoList: { id: string; items: object[] } | undefined;
  private inputTokens = 0;
  private outputTokens = 0;

  constructor(options: CodexStreamOptions) {
    this.options = options;
    this.sessionId = options.threadId;
  }

  opening(): { stdout: object[]; stderr: string[] } {
    return {
      stdout: [{ type: 'thread.started', thread_id: this.sessionId }, { type: 'turn.started' }],
      stderr: [STDIN_NOTICE],
    };
  }

  message(text: string): object[] {
    this.count(text);
    return [{ type: 'item.completed', item: { id: this.itemId(), type: 'agent_message', text } }];
  }

  plan(items: readonly PlanItem[]): object[] {
    const todo = items.map((item) => ({ text: item.text, completed: item.status === 'completed' }));
    this.count(JSON.stringify(todo));
    if (this.todoList === undefined) {
      this.todoList = { id: this.itemId(), items: todo };
      return [{ type: 'item.started', item: { id: this.todoList.id, type: 'todo_list', items: todo } }];
    }
    this.todoList.items = todo;
    return [{ type: 'item.updated', item: { id: this.todoList.id, type: 'todo_list', items: todo } }];
  }

  tool(call: ToolCall): ToolLines {
    const id = this.itemId();
    if (call.kind === 'shell') {
      const command = `/bin/bash -lc ${shellQuote(call.command)}`;
      this.count(command);
      const item = { id, type: 'command_execution', command };
      return {
        hook: { id, name: 'Bash', input: { command: call.command }, response: (result) => result.output },
        // A refused call prints no item at all (the model reads the refusal as the call's output).
        denied: () => [],
        started: [
          { type: 'item.started', item: { ...item, aggregated_output: '', exit_code: null, status: 'in_progress' } },
        ],
        finish: (result) => [
          {
            type: 'item.completed',
            item: {
              ...item,
              aggregated_output: result.output,
              exit_code: result.exitCode ?? (result.ok ? 0 : 1),
              status: result.ok ? 'completed' : 'failed',
            },
          },
        ],
      };
    }
    const kind = call.kind === 'write' && !call.existed ? 'add' : 'update';
    this.count(call.kind === 'write' ? call.content : call.replace);
    const item = { id, type: 'file_change', changes: [{ path: call.file, kind }] };
    const patch = `*** Begin Patch\n*** ${kind === 'add' ? 'Add' : 'Update'} File: ${call.file}\n*** End Patch\n`;
    return {
      hook: {
        id,
        name: 'apply_patch',
        input: { command: patch },
        response: (result) => `Exit code: ${result.ok ? 0 : 1}\n${result.output}`,
      },
      denied: () => [],
      started: [{ type: 'item.started', item: { ...item, status: 'in_progress' } }],
      finish: (result) => [{ type: 'item.completed', item: { ...item, status: result.ok ? 'completed' : 'failed' } }],
    };
  }

  ending(ending: FinalEnding): EndingOutput {
    switch (ending.kind) {
      case 'complete': {
        const message = this.message(ending.message);
        const usage = {
          input_tokens: this.inputTokens,
          cached_input_tokens: 0,
          cache_write_input_tokens: 0,
          output_tokens: this.outputTokens,
          reasoning_output_tokens: 0,
        };
        return {
          stdout: [...message, ...this.closeTodoList(), { type: 'turn.completed', usage }],
          stderr: [],
          exitCode: 0,
        };
      }
      case 'quota':
        return ending.variant === 'usage_limit'
          ? this.failed([], `${USAGE_LIMIT} ${codexResetText(ending.resetsAt)}.`)
          : this.failed([], 'Quota exceeded. Check your plan and billing details.');
      case 'rate_limit': {
        const retries = this.options.streamMaxRetries;
        const reason = () =>
          `exceeded retry limit, last status: 429 Too Many Requests, request id: ${openaiRequestId()}`;
        const reconnects = Array.from({ length: retries }, (_, i) => ({
          type: 'error',
          message: `Reconnecting... ${i + 1}/${retries} (${reason()})`,
        }));
        return this.failed(reconnects, reason());
      }
      case 'overloaded':
        return this.failed([], 'Selected model is at capacity. Please try a different model.');
      case 'auth':
        return this.failed([], 'unexpected status 401 Unauthorized: Missing bearer or basic authentication in header');
      case 'crash':
        return {
          stdout: [],
          stderr: [
            "thread 'main' panicked at core/src/codex.rs:1873:41:",
            'called `Option::unwrap()` on a `None` value',
            'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
          ],
          exitCode: 101,
        };
    }
  }

  /** A fatal error: the transient lines, the `error` line, the plan's completion, `turn.failed`; exit 1. */
  private failed(before: object[], message: string): EndingOutput {
    return {
      stdout: [
        ...before,
        { type: 'error', message },
        ...this.closeTodoList(),
        { type: 'turn.failed', error: { message } },
      ],
      stderr: [],
      exitCode: 1,
    };
  }

  private closeTodoList(): object[] {
    if (this.todoList === undefined) return [];
    const { id, items } = this.todoList;
    this.todoList = undefined;
    return [{ type: 'item.completed', item: { id, type: 'todo_list', items } }];
  }

  private itemId(): string {
    return `item_${this.nextItem++}`;
  }

  /** Counts one model call that produced `text`. */
  private count(text: string): void {
    this.inputTokens += INPUT_TOKENS_PER_CALL;
    this.outputTokens += Math.ceil(text.length / 4);
  }
}
