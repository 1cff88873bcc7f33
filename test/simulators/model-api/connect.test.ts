import { describe, expect, it } from 'vitest';
import { connectHarness, OPENCODE_SIM_MODEL } from '../../../src/simulators/model-api/connect.js';

const options = { url: 'http://127.0.0.1:4567/', script: 'quota' };

describe('connectHarness', () => {
  it('points Claude Code at <url>/<script> with an API key, or an OAuth token', () => {
    expect(connectHarness('claude-code', options)).toEqual({
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:4567/quota', ANTHROPIC_API_KEY: 'sk-ant-sim-0000' },
      args: [],
    });
    const oauth = connectHarness('claude-code', { ...options, auth: 'oauth' });
    expect(oauth.env).toEqual({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4567/quota',
      CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-sim-0000',
    });
  });

  it('defines a Codex model provider with -c pairs: Responses API at <url>/<script>/v1, bounded retries', () => {
    const { env, args } = connectHarness('codex', options);
    expect(env).toEqual({ HARMFLOW_SIM_API_KEY: 'sk-sim-0000' });
    expect(args.filter((_, i) => i % 2 === 0).every((flag) => flag === '-c')).toBe(true);
    expect(args.filter((_, i) => i % 2 === 1)).toEqual([
      'model_provider="harmflow-sim"',
      'model_providers.harmflow-sim.name="HarmFlow model-API simulator"',
      'model_providers.harmflow-sim.base_url="http://127.0.0.1:4567/quota/v1"',
      'model_providers.harmflow-sim.env_key="HARMFLOW_SIM_API_KEY"',
      'model_providers.harmflow-sim.wire_api="responses"',
      'model_providers.harmflow-sim.request_max_retries=0',
      'model_providers.harmflow-sim.stream_max_retries=2',
    ]);
  });

  it('points Gemini CLI at <url>/<script> with an API key', () => {
    expect(connectHarness('gemini', options)).toEqual({
      env: { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:4567/quota', GEMINI_API_KEY: 'sim-0000' },
      args: [],
    });
  });

  it('gives OpenCode an openai-compatible provider at <url>/<script>/v1 and selects its model', () => {
    const { env, args } = connectHarness('opencode', options);
    expect(args).toEqual(['-m', OPENCODE_SIM_MODEL]);
    const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? '');
    expect(config.provider['harmflow-sim']).toMatchObject({
      npm: '@ai-sdk/openai-compatible',
      options: { baseURL: 'http://127.0.0.1:4567/quota/v1' },
      models: { 'sim-model': { tool_call: true } },
    });
    expect(config).toMatchObject({ model: 'harmflow-sim/sim-model', small_model: 'harmflow-sim/sim-model' });
  });
});
