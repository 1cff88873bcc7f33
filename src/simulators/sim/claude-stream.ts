/**
 * Claude Code 2.1.332's `-p … --output-format stream-json --verbose` lines, as recorded in
 * shared/reference/harnesses/claude-code-and-codex.md §3.3–3.6: `system/init` first; one `assistant`
 * line per content block (text, tool_use) and a `user` line with each tool_result; `system/api_retry`
 * before each retry; `rate_limit_event` on a subscription limit; on an API error a synthetic assistant
 * line (model `<synthetic>`) and a `result` with `subtype:"success"`, `is_error:true` and
 * `api_error_status`; the `result` line always last. Token counts and cost are synthetic (see
 * docs/simulator.md); the rest of each line has the recorded shape.
 */
import { randomUUID } from 'node:crypto';
import { base62 } from './ids.js';
import { claudeResetText } from './reset-time.js';
import type { PlanItem } from './scenario.js';
import type { AgentStream, EndingOutput, FinalEnding, ToolCall, ToolLines, ToolResult } from './stream.js';

/** How long the five-hour window of a simulated limit warning has left: three hours. */
const WARNING_WINDOW_LEFT_S = 3 * 3600;

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CLAUDE_DEFAULT_MODEL = 'claude-sonnet-4-5';

/** Claude Code retries a failing API call 10 times by default (reference §3.5). */
export const CLAUDE_DEFAULT_MAX_RETRIES = 10;

/** `retry_delay_ms` measured for 429 with `retry-after: 1` (reference §3.5); later retries repeat the last. */
const RETRY_DELAYS_MS = [1055, 1205, 2222, 4803, 8675, 16910, 39241, 38317, 37170, 32565];

/** Synthetic usage: 120 input tokens per API call (the recorded 2-call run reported 240). */
const INPUT_TOKENS_PER_CALL = 120;

/** Claude Sonnet list prices, USD per token (Claude Code computes cost client-side from list prices). */
const USD_PER_INPUT_TOKEN = 3 / 1_000_000;
const USD_PER_OUTPUT_TOKEN = 15 / 1_000_000;

const TOOLS = [
  'Task',
  'Bash',
  'Glob',
  'Grep',
  'ExitPlanMode',
  'Read',
  'Edit',
  'Write',
  'NotebookEdit',
  'WebFetch',
  'TodoWrite',
  'WebSearch',
  'BashOutput',
  'KillShell',
];

const TODO_RESULT =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable';

export interface ClaudeStreamOptions {
  readonly sessionId: string;
  readonly model: string;
  readonly cwd: string;
  /** `ANTHROPIC_API_KEY` when an API key is set, `none` with an OAuth token (reference §3.1). */
  readonly apiKeySource: string;
  /** How many `system/api_retry` lines precede a transient API failure (`CLAUDE_CODE_MAX_RETRIES`). */
  readonly maxRetries: number;
  /** Host of `ANTHROPIC_BASE_URL`, when one is set: named in the 529 text, like the real CLI. */
  readonly gateway?: string;
  readonly now?: () => Date;
}

type ApiError = { status: number; retry?: string; text: string };

/** Prints Claude Code's stream-json lines for one run. */
export class ClaudeStream implements AgentStream {
  readonly sessionId: string;
  private readonly options: ClaudeStreamOptions;
  private readonly now: () => Date;
  private readonly startedAt: Date;
  private calls = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private todos: object[] = [];

  constructor(options: ClaudeStreamOptions) {
    this.options = options;
    this.sessionId = options.sessionId;
    this.now = options.now ?? (() => new Date());
    this.startedAt = this.now();
  }

  opening(): { stdout: object[]; stderr: string[] } {
    const { cwd, model, apiKeySource, gateway } = this.options;
    const init = {
      type: 'system',
      subtype: 'init',
      cwd,
      session_id: this.sessionId,
      tools: TOOLS,
      mcp_servers: [],
      model,
      permissionMode: 'bypassPermissions',
      slash_commands: ['compact', 'context', 'cost', 'init', 'review'],
      apiKeySource,
      claude_code_version: CLAUDE_CODE_VERSION,
      output_style: 'default',
      agents: ['general-purpose'],
      skills: [],
      plugins: [],
      analytics_disabled: true,
      served_by_anthropic: gateway === undefined,
      uuid: randomUUID(),
    };
    return { stdout: [init], stderr: [] };
  }

  message(text: string): object[] {
    return [this.assistant([{ type: 'text', text }])];
  }

  plan(items: readonly PlanItem[]): object[] {
    const todos = items.map((item) => ({
      content: item.text,
      status: item.status,
      activeForm: item.activeForm ?? item.text,
    }));
    const lines = this.toolUse('TodoWrite', { todos });
    const result = this.toolResult(lines.id, TODO_RESULT, false, { oldTodos: this.todos, newTodos: todos });
    this.todos = todos;
    return [lines.line, result];
  }

  tool(call: ToolCall): ToolLines {
    switch (call.kind) {
      case 'shell': {
        const input = { command: call.command, description: call.description };
        const use = this.toolUse('Bash', input);
        return {
          started: [use.line],
          hook: {
            id: use.id,
            name: 'Bash',
            input,
            response: (result) => ({
              stdout: result.stdout ?? '',
              stderr: result.stderr ?? '',
              interrupted: false,
              isImage: false,
            }),
            failure: (result) => `Exit code ${result.exitCode ?? 1}\n${result.output.replace(/\n$/, '')}`,
          },
          denied: (reason) => this.deniedLines(use, 'Bash', reason),
          finish: (result) => {
            const output = result.output.replace(/\n$/, '');
            const content = result.ok ? output : `Exit code ${result.exitCode ?? 1}\n${output}`;
            const detail = {
              stdout: result.stdout ?? '',
              stderr: result.stderr ?? '',
              interrupted: false,
              isImage: false,
            };
            return [this.toolResult(use.id, content, !result.ok, detail)];
          },
        };
      }
      case 'write': {
        const input = { file_path: call.file, content: call.content };
        const use = this.toolUse('Write', input);
        return {
          started: [use.line],
          hook: {
            id: use.id,
            name: 'Write',
            input,
            response: () => ({ filePath: call.file, success: true }),
            failure: (result) => result.output,
          },
          denied: (reason) => this.deniedLines(use, 'Write', reason),
          finish: (result) =>
            result.ok
              ? [
                  this.toolResult(
                    use.id,
                    call.existed
                      ? `The file ${call.file} has been updated successfully.`
                      : `File created successfully at: ${call.file}`,
                    false,
                    {
                      type: call.existed ? 'update' : 'create',
                      filePath: call.file,
                      content: call.content,
                      structuredPatch: [],
                    },
                  ),
                ]
              : [this.toolError(use.id, result)],
        };
      }
      case 'edit': {
        const input = { file_path: call.file, old_string: call.find, new_string: call.replace };
        const use = this.toolUse('Edit', input);
        return {
          started: [use.line],
          hook: {
            id: use.id,
            name: 'Edit',
            input,
            response: () => ({ filePath: call.file, success: true }),
            failure: (result) => result.output,
          },
          denied: (reason) => this.deniedLines(use, 'Edit', reason),
          finish: (result) =>
            result.ok
              ? [
                  this.toolResult(use.id, `The file ${call.file} has been updated successfully.`, false, {
                    filePath: call.file,
                    oldString: call.find,
                    newString: call.replace,
                    structuredPatch: [],
                    userModified: false,
                    replaceAll: false,
                  }),
                ]
              : [this.toolError(use.id, result)],
        };
      }
    }
  }

  ending(ending: FinalEnding): EndingOutput {
    switch (ending.kind) {
      case 'complete': {
        const text = this.message(ending.message);
        const warning = ending.utilization === undefined ? [] : [this.limitWarning(ending.utilization)];
        return { stdout: [...warning, ...text, this.result(ending.message)], stderr: [], exitCode: 0 };
      }
      case 'quota': {
        if (ending.variant === 'credit') return this.apiError({ status: 400, text: 'Credit balance is too low' });
        const weekly = ending.variant === 'weekly';
        const resetsAt = Math.ceil(ending.resetsAt.getTime() / 1000);
        const window = weekly ? 'seven_day' : 'five_hour';
        const event = {
          type: 'rate_limit_event',
          rate_limit_info: {
            status: 'rejected',
            resetsAt,
            rateLimitType: window,
            overageStatus: 'rejected',
            overageDisabledReason: 'org_level_disabled',
            isUsingOverage: false,
            unifiedWindows: { [window]: { utilization: 1, resetsAt, status: 'rejected' } },
          },
          session_id: this.sessionId,
          uuid: randomUUID(),
        };
        const limit = weekly ? 'weekly limit' : '5-hour limit';
        const text = `You've hit your ${limit} · resets ${claudeResetText(ending.resetsAt, this.now())}`;
        const error = this.apiError({ status: 429, text });
        return { ...error, stdout: [event, ...error.stdout] };
      }
      case 'rate_limit':
        return this.apiError({
          status: 429,
          retry: 'rate_limit',
          text: `API Error: Request rejected (429) · This request would exceed the rate limit for your organization (${randomUUID()}) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.`,
        });
      case 'overloaded': {
        const gateway = this.options.gateway;
        const hint = gateway === undefined ? '' : ` If it persists, check your inference gateway (${gateway}).`;
        return this.apiError({
          status: 529,
          retry: 'overloaded',
          text: `API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.${hint}`,
        });
      }
      case 'auth':
        return this.apiError({
          status: 401,
          retry: 'authentication_failed',
          text: 'Invalid API key · Fix external API key',
        });
      case 'crash':
        return {
          stdout: [],
          stderr: ["TypeError: undefined is not an object (evaluating 'response.content')"],
          exitCode: 1,
        };
    }
  }

  /**
   * The `rate_limit_event` Claude Code prints when the API's headers say `allowed_warning` (reference
   * note: the summary still says `allowed`, the five-hour window says `allowed_warning` with its
   * utilization), the window resetting in three hours.
   */
  private limitWarning(utilization: number): object {
    const resetsAt = Math.ceil(this.now().getTime() / 1000) + WARNING_WINDOW_LEFT_S;
    return {
      type: 'rate_limit_event',
      rate_limit_info: {
        status: 'allowed',
        resetsAt,
        rateLimitType: 'five_hour',
        isUsingOverage: false,
        unifiedWindows: { five_hour: { utilization, resetsAt, status: 'allowed_warning' } },
      },
      session_id: this.sessionId,
      uuid: randomUUID(),
    };
  }

  /** Retries (if the error is retried), the synthetic assistant line, the error result; exit 1. */
  private apiError(error: ApiError): EndingOutput {
    const retries: object[] = [];
    if (error.retry !== undefined) {
      for (let attempt = 1; attempt <= this.options.maxRetries; attempt++) {
        retries.push({
          type: 'system',
          subtype: 'api_retry',
          attempt,
          max_retries: this.options.maxRetries,
          retry_delay_ms: RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1],
          error_status: error.status,
          error: error.retry,
          session_id: this.sessionId,
          uuid: randomUUID(),
        });
      }
    }
    const synthetic = {
      type: 'assistant',
      message: {
        id: randomUUID(),
        container: null,
        model: '<synthetic>',
        role: 'assistant',
        stop_reason: 'stop_sequence',
        stop_sequence: '',
        type: 'message',
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        content: [{ type: 'text', text: error.text }],
      },
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: randomUUID(),
    };
    this.calls += 1;
    return { stdout: [...retries, synthetic, this.result(error.text, error.status)], stderr: [], exitCode: 1 };
  }

  private assistant(content: object[]): object {
    this.calls += 1;
    const outputTokens = Math.ceil(JSON.stringify(content).length / 4);
    this.inputTokens += INPUT_TOKENS_PER_CALL;
    this.outputTokens += outputTokens;
    return {
      type: 'assistant',
      message: {
        id: `msg_01${base62(22)}`,
        type: 'message',
        role: 'assistant',
        model: this.options.model,
        content,
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: INPUT_TOKENS_PER_CALL,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: outputTokens,
          service_tier: 'standard',
        },
      },
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: randomUUID(),
      timestamp: this.now().toISOString(),
      request_id: `req_011C${base62(20)}`,
    };
  }

  private toolUse(name: string, input: object): { id: string; line: object } {
    const id = `toolu_01${base62(22)}`;
    return { id, line: this.assistant([{ type: 'tool_use', id, name, input }]) };
  }

  /** A call a PreToolUse hook refused: the model's request, then the hook's reason as the tool's error (note §8). */
  private deniedLines(use: { id: string; line: object }, tool: string, reason: string): object[] {
    return [use.line, this.toolResult(use.id, `PreToolUse:${tool} hook error: ${reason}`, true, `Error: ${reason}`)];
  }

  private toolResult(id: string, content: string, isError: boolean, detail: unknown): object {
    return {
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }] },
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: randomUUID(),
      timestamp: this.now().toISOString(),
      tool_use_result: detail,
      tool_result_meta: [{ id, permission_decision: { decision: 'accept', source: 'config', reason_type: 'mode' } }],
    };
  }

  private toolError(id: string, result: ToolResult): object {
    return this.toolResult(id, `<tool_use_error>${result.output}</tool_use_error>`, true, `Error: ${result.output}`);
  }

  /** The last line: success, or (with a status) the API error Claude Code reports as `subtype:"success"`. */
  private result(text: string, apiErrorStatus?: number): object {
    const isError = apiErrorStatus !== undefined;
    const cost = this.inputTokens * USD_PER_INPUT_TOKEN + this.outputTokens * USD_PER_OUTPUT_TOKEN;
    const durationMs = this.now().getTime() - this.startedAt.getTime();
    return {
      type: 'result',
      subtype: 'success',
      is_error: isError,
      num_turns: this.calls,
      session_id: this.sessionId,
      total_cost_usd: Number(cost.toFixed(6)),
      duration_ms: durationMs,
      duration_api_ms: Math.round(durationMs / 2),
      result: text,
      stop_reason: isError ? 'stop_sequence' : 'end_turn',
      terminal_reason: isError ? 'api_error' : 'completed',
      api_error_status: apiErrorStatus ?? null,
      permission_denials: [],
      errors: [],
      usage: {
        input_tokens: this.inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: this.outputTokens,
        server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
        service_tier: 'standard',
      },
      modelUsage: {
        [this.options.model]: {
          inputTokens: this.inputTokens,
          outputTokens: this.outputTokens,
          cacheReadInputTokens: 0,
          cacheCreationInputTokens: 0,
          webSearchRequests: 0,
          costUSD: Number(cost.toFixed(6)),
          contextWindow: 200_000,
        },
      },
      uuid: randomUUID(),
    };
  }
}
