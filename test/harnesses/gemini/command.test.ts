import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandInput } from '../../../src/harnesses/adapter.js';
import { GEMINI_SETTINGS_FILE } from '../../../src/harnesses/gemini/command.js';
import { geminiAdapter } from '../../../src/harnesses/gemini/index.js';

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
  GEMINI_CLI_HOME: '/state/runs/e1/attempts/1/home/gemini-home',
  TMPDIR: '/state/runs/e1/attempts/1/home/tmp',
  LANG: 'C.UTF-8',
  GEMINI_CLI_NO_RELAUNCH: 'true',
  GEMINI_TELEMETRY_ENABLED: 'false',
  NO_COLOR: '1',
};

describe('gemini command', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.GEMINI_API_KEY = 'host-secret';
    process.env.GOOGLE_GEMINI_BASE_URL = 'https://host.example';
    process.env.HARMFLOW_TEST_LEAK = 'leak';
  });
  afterEach(() => {
    for (const name of ['GEMINI_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'HARMFLOW_TEST_LEAK']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('builds the first turn with a clean environment and the settings file', () => {
    const spec = geminiAdapter.command(base);
    expect(spec).toEqual({
      command: 'gemini',
      args: ['-p', 'Add a README', '--output-format', 'stream-json', '--yolo', '--skip-trust'],
      env: OWN_ENV,
      dirs: ['home', 'gemini-home', 'tmp'],
      files: { [GEMINI_SETTINGS_FILE]: expect.any(String) },
    });
    expect(GEMINI_SETTINGS_FILE).toBe('gemini-home/.gemini/settings.json');
    expect(spec.env.GEMINI_API_KEY).toBeUndefined();
    expect(spec.env.HARMFLOW_TEST_LEAK).toBeUndefined();
  });

  it('chooses the api-key auth type and turns off updates, statistics and telemetry', () => {
    const settings: unknown = JSON.parse(geminiAdapter.command(base).files[GEMINI_SETTINGS_FILE] ?? '');
    expect(settings).toEqual({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 3 },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    });
  });

  it('puts --resume right after the prompt, guards a leading dash, appends model and extra args', () => {
    const spec = geminiAdapter.command({
      ...base,
      prompt: '- say hi\n- then stop',
      model: 'gemini-2.5-pro',
      extraArgs: ['--include-directories', '../shared'],
      resumeSessionId: '40793905-672b-40cc-94de-56f64df1232a',
    });
    expect(spec.args).toEqual([
      '-p',
      ' - say hi\n- then stop',
      '--resume',
      '40793905-672b-40cc-94de-56f64df1232a',
      '--output-format',
      'stream-json',
      '--yolo',
      '--skip-trust',
      '-m',
      'gemini-2.5-pro',
      '--include-directories',
      '../shared',
    ]);
  });

  it('merges the task env last but keeps HOME, GEMINI_CLI_HOME and TMPDIR private', () => {
    const spec = geminiAdapter.command({
      ...base,
      env: {
        GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:47931',
        GEMINI_API_KEY: 'task-key',
        GEMINI_TELEMETRY_ENABLED: 'true',
        HOME: '/root',
        GEMINI_CLI_HOME: '/root',
        TMPDIR: '/tmp',
      },
    });
    expect(spec.env).toEqual({
      ...OWN_ENV,
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:47931',
      GEMINI_API_KEY: 'task-key',
      GEMINI_TELEMETRY_ENABLED: 'true',
    });
  });
});
