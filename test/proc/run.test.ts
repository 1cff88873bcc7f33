import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/proc/run.js';
import { ENV, node, processAlive } from './helpers.js';

describe('runCommand', () => {
  it('returns stdout, stderr and the exit code', async () => {
    const result = await runCommand(
      ...argv(node('process.stdout.write("out\\u00e9"); console.error("err"); process.exit(2)')),
      {
        cwd: process.cwd(),
        env: ENV,
        timeoutMs: 10_000,
      },
    );
    expect(result).toEqual({ exitCode: 2, signal: null, stdout: 'outé', stderr: 'err\n', timedOut: false });
  });

  it('inherits HarmFlow’s environment when none is given', async () => {
    process.env.HARMFLOW_RUN_TEST = 'inherited';
    try {
      const result = await runCommand('sh', ['-c', 'printf %s "$HARMFLOW_RUN_TEST"'], { cwd: '/', timeoutMs: 10_000 });
      expect(result.stdout).toBe('inherited');
    } finally {
      delete process.env.HARMFLOW_RUN_TEST;
    }
  });

  it('kills the whole group on timeout and marks the result', async () => {
    const started = Date.now();
    const result = await runCommand('sh', ['-c', 'sleep 1000 & echo $!; sleep 1000'], {
      cwd: '/',
      env: ENV,
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(processAlive(Number(result.stdout.trim()))).toBe(false);
  });

  it('resolves a missing command with an error', async () => {
    const result = await runCommand('harmflow-no-such-tool', [], { cwd: '/', env: ENV, timeoutMs: 1000 });
    expect(result).toEqual({
      exitCode: null,
      signal: null,
      error: 'spawn harmflow-no-such-tool ENOENT',
      stdout: '',
      stderr: '',
      timedOut: false,
    });
  });

  it('leaves no process of the group behind after a normal exit', async () => {
    const result = await runCommand('sh', ['-c', 'sleep 1000 >/dev/null 2>&1 & echo $!'], {
      cwd: '/',
      env: ENV,
      timeoutMs: 10_000,
    });
    expect(result.exitCode).toBe(0);
    expect(processAlive(Number(result.stdout.trim()))).toBe(false);
  });
});

function argv(spec: { command: string; args: string[] }): [string, string[]] {
  return [spec.command, spec.args];
}
