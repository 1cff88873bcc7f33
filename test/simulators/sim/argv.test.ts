import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { InvocationError, parseClaudeArgv, parseCodexArgv } from '../../../src/simulators/sim/argv.js';
import { claudeArgv, codexArgv } from '../helpers.js';

describe('parseClaudeArgv', () => {
  test('reads the prompt after -p, the model and the session to resume; ignores other flags', () => {
    const argv = claudeArgv('--model is part of the prompt', { resume: 'abc', model: 'claude-opus-4-1' });
    expect(parseClaudeArgv([...argv, '--max-turns', '3', '--include-partial-messages'])).toEqual({
      prompt: '--model is part of the prompt',
      model: 'claude-opus-4-1',
      resumeId: 'abc',
    });
  });

  test('accepts --flag=value and --session-id (a UUID only)', () => {
    const id = '3f1d7c9e-2b4a-4c6d-8e0f-1a2b3c4d5e6f';
    expect(parseClaudeArgv(['--print=hi', `--session-id=${id}`, '--model=m'])).toEqual({
      prompt: 'hi',
      model: 'm',
      sessionId: id,
    });
    expect(() => parseClaudeArgv(['-p', 'hi', '--session-id', 'nope'])).toThrow(/must be a UUID/);
  });

  test('--settings names the hooks file', () => {
    expect(parseClaudeArgv(['-p', 'hi', '--settings', '/home/a/harmflow-gates.json'])).toEqual({
      prompt: 'hi',
      hooksFile: '/home/a/harmflow-gates.json',
    });
  });

  test('a command line without a prompt is an InvocationError', () => {
    expect(() => parseClaudeArgv(['--output-format', 'stream-json', '--verbose'])).toThrow(InvocationError);
    expect(() => parseClaudeArgv(['-p'])).toThrow(/-p needs a value/);
  });
});

describe('parseCodexArgv', () => {
  test('the prompt is the last element; -m sets the model; unknown flags are ignored', () => {
    const argv = codexArgv('fix it', { model: 'gpt-5.5' });
    expect(parseCodexArgv([...argv.slice(0, -1), '--color', 'never', '--new-flag', 'fix it'])).toEqual({
      prompt: 'fix it',
      model: 'gpt-5.5',
    });
  });

  test('resume <thread_id> before the prompt; -c …stream_max_retries=N is read', () => {
    const argv = codexArgv('go on', { resume: 'thread-1' });
    const withConfig = [...argv.slice(0, 2), '-c', 'model_providers.mock.stream_max_retries=0', ...argv.slice(2)];
    expect(parseCodexArgv(withConfig)).toEqual({ prompt: 'go on', resumeId: 'thread-1', streamMaxRetries: 0 });
  });

  test('the hooks file is $CODEX_HOME/hooks.json, only with the trust flag and when it exists', () => {
    const home = mkdtempSync(join(tmpdir(), 'harmflow-sim-argv-'));
    try {
      const argv = ['exec', '--dangerously-bypass-hook-trust', '--json', 'go'];
      expect(parseCodexArgv(argv, home)).toEqual({ prompt: 'go' });
      writeFileSync(join(home, 'hooks.json'), '{"hooks":{}}');
      expect(parseCodexArgv(argv, home)).toEqual({ prompt: 'go', hooksFile: join(home, 'hooks.json') });
      expect(parseCodexArgv(['exec', '--json', 'go'], home)).toEqual({ prompt: 'go' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('a value of a known flag is never taken for `resume`', () => {
    expect(parseCodexArgv(['exec', '-C', 'resume', 'prompt'])).toEqual({ prompt: 'prompt' });
  });

  test('no exec, no prompt, or resume without an id are InvocationErrors', () => {
    expect(() => parseCodexArgv(['--json', 'hi'])).toThrow(/no `exec` subcommand/);
    expect(() => parseCodexArgv(['exec', '--json'])).toThrow(/does not end with a prompt/);
    expect(() => parseCodexArgv(['exec', '--json', '-m'])).toThrow(InvocationError);
    expect(() => parseCodexArgv(['exec', 'resume', 'hi'])).toThrow(/needs a thread id/);
  });
});
