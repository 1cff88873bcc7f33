import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandInput } from '../../../src/harnesses/adapter.js';
import { codexAdapter } from '../../../src/harnesses/codex/index.js';

const base: CommandInput = {
  prompt: 'Add a README',
  cwd: '/work/tree',
  homeDir: '/state/runs/e1/attempts/2/home',
  extraArgs: [],
  env: {},
  path: '/opt/harmflow/bin:/usr/bin:/bin',
};

const OWN_ENV = {
  PATH: '/opt/harmflow/bin:/usr/bin:/bin',
  HOME: '/state/runs/e1/attempts/2/home/home',
  CODEX_HOME: '/state/runs/e1/attempts/2/home/codex-home',
  LANG: 'C.UTF-8',
};

const FLAGS = ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'];

describe('codex command', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.OPENAI_API_KEY = 'sk-host-secret';
    process.env.CODEX_HOME = '/root/.codex';
    process.env.HARMFLOW_TEST_LEAK = 'leak';
  });
  afterEach(() => {
    for (const name of ['OPENAI_API_KEY', 'CODEX_HOME', 'HARMFLOW_TEST_LEAK']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('builds the first turn with a clean environment and the isolating config file', () => {
    const spec = codexAdapter.command(base);
    expect(spec.command).toBe('codex');
    expect(spec.args).toEqual([...FLAGS, 'Add a README']);
    expect(spec.env).toEqual(OWN_ENV);
    expect(spec.env.OPENAI_API_KEY).toBeUndefined();
    expect(spec.env.HARMFLOW_TEST_LEAK).toBeUndefined();
    expect(Object.keys(spec.files)).toEqual(['codex-home/config.toml']);
    const config = spec.files['codex-home/config.toml'] ?? '';
    for (const line of [
      'check_for_update_on_startup = false',
      'allow_login_shell = false',
      '[analytics]\nenabled = false',
      '[features]\nplugins = false\napps = false\nremote_plugin = false\nin_app_updates = false',
    ]) {
      expect(config).toContain(line);
    }
  });

  it('resumes with `resume <thread_id>` just before the prompt, after model and extra args', () => {
    const spec = codexAdapter.command({
      ...base,
      prompt: '- fix the build\n- push',
      model: 'gpt-5.5',
      extraArgs: ['-c', 'model_provider="mock"', '-c', 'model_providers.mock.request_max_retries=0'],
      resumeSessionId: '01a2266e-646b-7c91-beca-0924b8984b6a',
    });
    expect(spec.args).toEqual([
      ...FLAGS,
      '-m',
      'gpt-5.5',
      '-c',
      'model_provider="mock"',
      '-c',
      'model_providers.mock.request_max_retries=0',
      'resume',
      '01a2266e-646b-7c91-beca-0924b8984b6a',
      ' - fix the build\n- push',
    ]);
  });

  it('merges the task env last but keeps HOME and CODEX_HOME private', () => {
    const spec = codexAdapter.command({
      ...base,
      env: { MOCK_OPENAI_KEY: 'sk-mock-0000', HOME: '/root', CODEX_HOME: '/root/.codex', LANG: 'en_US.UTF-8' },
    });
    expect(spec.env).toEqual({ ...OWN_ENV, MOCK_OPENAI_KEY: 'sk-mock-0000', LANG: 'en_US.UTF-8' });
  });
});
