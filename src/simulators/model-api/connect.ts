/**
 * How a real harness CLI is pointed at the simulator through its own base-URL mechanism: the `env`
 * and `args` to put in a task's harness spec (`env:` and `args:`). Pure. Each CLI's mechanism is the
 * one the reference notes verified: Claude Code `ANTHROPIC_BASE_URL`, Codex a model provider defined
 * with `-c` (it ignores `OPENAI_BASE_URL`), Gemini CLI `GOOGLE_GEMINI_BASE_URL`, OpenCode an
 * `@ai-sdk/openai-compatible` provider in `OPENCODE_CONFIG_CONTENT`.
 */
import type { HarnessName } from '../../core/outcome.js';

/** The id of the model provider defined for Codex and OpenCode. */
const SIM_PROVIDER = 'harmflow-sim';

/** OpenCode's model, as `-m` names it: `<provider>/<model>`. */
export const OPENCODE_SIM_MODEL = `${SIM_PROVIDER}/sim-model`;

/** The variable Codex reads the simulator's API key from (`env_key`). */
const CODEX_KEY_VARIABLE = 'HARMFLOW_SIM_API_KEY';

/**
 * Codex's HTTP-level retries of a request (5xx, transport errors): 0. Its default 4 multiplies with
 * the stream retries below (a 500 took 30 requests and 24.5 s in the note); with 0, a 503 overload is
 * one request and a 500 three.
 */
const CODEX_REQUEST_MAX_RETRIES = 0;

/**
 * Codex's turn-level retries ("Reconnecting... n/N", which is how it retries a 429 rate limit): 2.
 * Enough for a script's `rateLimit: {times: 2}` to recover, as the note's 429×2-then-OK run did;
 * the default 5 only lengthens a failing run.
 */
const CODEX_STREAM_MAX_RETRIES = 2;

export interface ConnectOptions {
  /** The simulator's URL (`ModelApi.url`). */
  readonly url: string;
  /** The script the CLI follows. */
  readonly script: string;
  /**
   * Claude Code only: `oauth` sends an OAuth token (`CLAUDE_CODE_OAUTH_TOKEN`) instead of an API key,
   * so a quota reply is a subscription limit rather than an empty credit balance. Default `api-key`.
   */
  readonly auth?: 'api-key' | 'oauth';
}

/** What to add to a harness spec: environment variables and extra command-line arguments. */
export interface HarnessConnection {
  readonly env: Record<string, string>;
  readonly args: string[];
}

/** The `-c key=value` pairs that define the simulator as Codex's model provider. */
function codexArgs(baseUrl: string): string[] {
  const provider = `model_providers.${SIM_PROVIDER}`;
  const settings = [
    `model_provider="${SIM_PROVIDER}"`,
    `${provider}.name="HarmFlow model-API simulator"`,
    `${provider}.base_url="${baseUrl}/v1"`,
    `${provider}.env_key="${CODEX_KEY_VARIABLE}"`,
    // Responses over HTTP SSE: a custom provider makes no WebSocket attempt (note §4.1).
    `${provider}.wire_api="responses"`,
    `${provider}.request_max_retries=${CODEX_REQUEST_MAX_RETRIES}`,
    `${provider}.stream_max_retries=${CODEX_STREAM_MAX_RETRIES}`,
  ];
  return settings.flatMap((setting) => ['-c', setting]);
}

/** OpenCode's config: the simulator as an OpenAI-compatible provider with one model (note §3.2). */
function opencodeConfig(baseUrl: string): string {
  return JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    provider: {
      [SIM_PROVIDER]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'HarmFlow model-API simulator',
        options: { baseURL: `${baseUrl}/v1`, apiKey: 'sk-sim-0000' },
        models: {
          'sim-model': { name: 'Simulated model', tool_call: true, limit: { context: 128000, output: 8192 } },
        },
      },
    },
    model: OPENCODE_SIM_MODEL,
    // The title request goes to the small model: keep it on the simulator too.
    small_model: OPENCODE_SIM_MODEL,
    autoupdate: false,
    share: 'disabled',
  });
}

/** Returns the env and args that make `harness` talk to `script` on the simulator at `url`. */
export function connectHarness(harness: HarnessName, options: ConnectOptions): HarnessConnection {
  const baseUrl = `${options.url.replace(/\/+$/, '')}/${options.script}`;
  switch (harness) {
    case 'claude-code':
      return {
        env: {
          ANTHROPIC_BASE_URL: baseUrl,
          ...(options.auth === 'oauth'
            ? { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-sim-0000' }
            : { ANTHROPIC_API_KEY: 'sk-ant-sim-0000' }),
        },
        args: [],
      };
    case 'codex':
      return { env: { [CODEX_KEY_VARIABLE]: 'sk-sim-0000' }, args: codexArgs(baseUrl) };
    case 'gemini':
      // The API key auth type must also be selected in settings.json (the gemini adapter writes it),
      // or the base URL alone makes Gemini CLI choose "gateway" auth and exit 41 (note §2.2).
      return { env: { GOOGLE_GEMINI_BASE_URL: baseUrl, GEMINI_API_KEY: 'sim-0000' }, args: [] };
    case 'opencode':
      return { env: { OPENCODE_CONFIG_CONTENT: opencodeConfig(baseUrl) }, args: ['-m', OPENCODE_SIM_MODEL] };
  }
}
