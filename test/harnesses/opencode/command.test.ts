import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandInput } from '../../../src/harnesses/adapter.js';
import { opencodeAdapter } from '../../../src/harnesses/opencode/index.js';

const HOME = '/state/runs/e1/attempts/2/home';
const base: CommandInput = {
  prompt: 'Add a README',
  cwd: '/work/tree',
  homeDir: HOME,
  extraArgs: [],
  env: {},
  path: '/opt/harmflow/bin:/usr/bin:/bin',
};

const OWN_ENV = {
  PATH: '/opt/harmflow/bin:/usr/bin:/bin',
  HOME: `${HOME}/home`,
  XDG_CONFIG_HOME: `${HOME}/xdg-config`,
  XDG_DATA_HOME: `${HOME}/xdg-data`,
  XDG_CACHE_HOME: `${HOME}/xdg-cache`,
  XDG_STATE_HOME: `${HOME}/xdg-state`,
  LANG: 'C.UTF-8',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_SHARE: '1',
};

const FLAGS = ['run', '--format', 'json', '--print-logs', '--log-level', 'INFO', '--auto'];
const LOCK_FILE = 'xdg-config/opencode/package-lock.json';

describe('opencode command', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.OPENAI_API_KEY = 'sk-host-secret';
    process.env.OPENCODE_CONFIG = '/root/.config/opencode/opencode.json';
    process.env.XDG_CONFIG_HOME = '/root/.config';
  });
  afterEach(() => {
    for (const name of ['OPENAI_API_KEY', 'OPENCODE_CONFIG', 'XDG_CONFIG_HOME']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('builds a first turn that titles the session, with a clean environment', () => {
    const spec = opencodeAdapter.command(base);
    expect(spec.command).toBe('opencode');
    expect(spec.args).toEqual([...FLAGS, '--title', 'harmflow', 'Add a README']);
    expect(spec.env).toEqual(OWN_ENV);
  });

  it('creates every dir it points at, and the files that stop the background plugin install', () => {
    const spec = opencodeAdapter.command(base);
    expect(spec.dirs).toEqual([
      'home',
      'xdg-config',
      'xdg-data',
      'xdg-cache',
      'xdg-state',
      'xdg-config/opencode/node_modules',
    ]);
    for (const dir of spec.dirs.slice(1, 5)) expect(Object.values(spec.env)).toContain(`${HOME}/${dir}`);
    expect(Object.keys(spec.files)).toEqual([LOCK_FILE]);
    const lock = JSON.parse(spec.files[LOCK_FILE] ?? '') as unknown;
    expect(lock).toEqual({ packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } });
  });

  it('resumes with -s instead of a title, after the flags and before model, extra args and prompt', () => {
    const spec = opencodeAdapter.command({
      ...base,
      prompt: '- fix the build\n- push',
      model: 'mock/mock-model',
      extraArgs: ['--variant', 'high'],
      resumeSessionId: 'ses_dd8da8062ffemu0O8q99NH0wx1',
    });
    expect(spec.args).toEqual([
      ...FLAGS,
      '-s',
      'ses_dd8da8062ffemu0O8q99NH0wx1',
      '-m',
      'mock/mock-model',
      '--variant',
      'high',
      ' - fix the build\n- push',
    ]);
  });

  it('merges the task env last but keeps HOME and the XDG dirs private', () => {
    const config = '{"provider":{"mock":{"options":{"baseURL":"http://127.0.0.1:9/v1"}}}}';
    const spec = opencodeAdapter.command({
      ...base,
      env: {
        OPENCODE_CONFIG_CONTENT: config,
        HOME: '/root',
        XDG_CONFIG_HOME: '/root/.config',
        XDG_DATA_HOME: '/root/.local/share',
        XDG_CACHE_HOME: '/root/.cache',
        XDG_STATE_HOME: '/root/.local/state',
        LANG: 'en_US.UTF-8',
      },
    });
    expect(spec.env).toEqual({ ...OWN_ENV, OPENCODE_CONFIG_CONTENT: config, LANG: 'en_US.UTF-8' });
  });
});
