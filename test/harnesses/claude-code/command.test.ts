import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandInput } from '../../../src/harnesses/adapter.js';
import { claudeCodeAdapter } from '../../../src/harnesses/claude-code/index.js';

const base: CommandInput = {
  prompt: 'Add a README',
  cwd: '/work/tree',
  homeDir: '/state/runs/e1/attempts/1/home',
  extraArgs: [],
  env: {},
  path: '/opt/harmflow/bin:/usr/bin:/bin',
};

const OWN_ENV = {
  PATH: '/opt/harmflow/bin:/usr/bin:/bin',
  HOME: '/state/runs/e1/attempts/1/home/home',
  CLAUDE_CONFIG_DIR: '/state/runs/e1/attempts/1/home/claude-config',
  LANG: 'C.UTF-8',
  IS_SANDBOX: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  CLAUDE_CODE_MAX_RETRIES: '2',
};

describe('claude-code command', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-host-secret';
    process.env.ANTHROPIC_BASE_URL = 'https://host.example';
    process.env.HARMFLOW_TEST_LEAK = 'leak';
  });
  afterEach(() => {
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'HARMFLOW_TEST_LEAK']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('builds the first turn with a clean environment', () => {
    const spec = claudeCodeAdapter.command(base);
    expect(spec).toEqual({
      command: 'claude',
      args: ['-p', 'Add a README', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
      env: OWN_ENV,
      dirs: ['home', 'claude-config'],
      files: {},
    });
    expect(spec.env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(spec.env.HARMFLOW_TEST_LEAK).toBeUndefined();
  });

  it('puts --resume right after the prompt, guards a leading dash, appends model and extra args', () => {
    const spec = claudeCodeAdapter.command({
      ...base,
      prompt: '-starts with a dash',
      model: 'claude-sonnet-4-5',
      extraArgs: ['--max-turns', '30'],
      resumeSessionId: '295d1780-45f3-4fd9-b6f7-1865a70149cb',
    });
    expect(spec.args).toEqual([
      '-p',
      ' -starts with a dash',
      '--resume',
      '295d1780-45f3-4fd9-b6f7-1865a70149cb',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
      '--model',
      'claude-sonnet-4-5',
      '--max-turns',
      '30',
    ]);
  });

  it('merges the task env last but keeps HOME and CLAUDE_CONFIG_DIR private', () => {
    const spec = claudeCodeAdapter.command({
      ...base,
      env: {
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:18791/tool',
        ANTHROPIC_API_KEY: 'sk-ant-task',
        CLAUDE_CODE_MAX_RETRIES: '0',
        HOME: '/root',
        CLAUDE_CONFIG_DIR: '/root/.claude',
      },
    });
    expect(spec.env).toEqual({
      ...OWN_ENV,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:18791/tool',
      ANTHROPIC_API_KEY: 'sk-ant-task',
      CLAUDE_CODE_MAX_RETRIES: '0',
    });
  });
});
