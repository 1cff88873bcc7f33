import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/proc/group.js';
import { type ProcessSpec, type StreamName, spawnProcess } from '../../src/proc/spawn.js';
import { ENV, node, processAlive, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** Starts `spec` and collects its lines per stream. */
function start(spec: Omit<ProcessSpec, 'cwd' | 'env'> & Partial<Pick<ProcessSpec, 'cwd' | 'env'>>) {
  const lines: Record<StreamName, string[]> = { stdout: [], stderr: [] };
  const waiters: { text: string; resolve: () => void }[] = [];
  const proc = spawnProcess({
    cwd: process.cwd(),
    env: ENV,
    ...spec,
    onLine(stream, line) {
      lines[stream].push(line);
      for (const waiter of waiters) if (line === waiter.text) waiter.resolve();
    },
  });
  /** Resolves when a line equal to `text` has arrived on either stream. */
  const lineSeen = (text: string) =>
    new Promise<void>((resolve) => {
      if (lines.stdout.includes(text) || lines.stderr.includes(text)) resolve();
      else waiters.push({ text, resolve });
    });
  return { proc, lines, lineSeen };
}

describe('spawnProcess output', () => {
  it('delivers lines in order per stream across split chunks, \\r\\n and multi-byte characters', async () => {
    const dir = await dirs.make();
    const script = `
      const parts = [Buffer.from('al'), Buffer.from('pha\\r\\nbe'), Buffer.from('ta \\u00e9', 'utf8').subarray(0, 4),
        Buffer.from('\\u00e9', 'utf8').subarray(1), Buffer.from('\\n\\nlast')];
      let i = 0;
      const next = () => { if (i < parts.length) { process.stdout.write(parts[i++]); setTimeout(next, 15); } };
      process.stderr.write('err one\\nerr two');
      next();`;
    const { proc, lines } = start({
      ...node(script),
      stdoutFile: join(dir, 'stdout.log'),
      stderrFile: join(dir, 'stderr.log'),
    });
    const exit = await proc.exited;
    expect(exit).toEqual({ exitCode: 0, signal: null });
    expect(lines.stdout).toEqual(['alpha', 'beta é', '', 'last']);
    expect(lines.stderr).toEqual(['err one', 'err two']);
    expect(await readFile(join(dir, 'stdout.log'), 'utf8')).toBe('alpha\r\nbeta é\n\nlast');
  });

  it('delivers a 200 KB line whole', async () => {
    const script = `process.stdout.write(JSON.stringify({ text: 'x'.repeat(200000) }) + '\\nafter\\n')`;
    const { proc, lines } = start(node(script));
    await proc.exited;
    expect(lines.stdout).toHaveLength(2);
    expect(lines.stdout[0]).toBe(JSON.stringify({ text: 'x'.repeat(200_000) }));
    expect(lines.stdout[1]).toBe('after');
  });

  it('appends exactly the raw bytes, invalid UTF-8 included, to the log files', async () => {
    const dir = await dirs.make();
    const stdoutFile = join(dir, 'out.log');
    await writeFile(stdoutFile, 'earlier attempt\n');
    const script = `
      const bytes = Buffer.alloc(300000); for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
      process.stdout.write(bytes); process.stderr.write(bytes.subarray(0, 1000));`;
    const { proc } = start({ ...node(script), stdoutFile, stderrFile: join(dir, 'err.log') });
    await proc.exited;
    const expected = Buffer.alloc(300_000);
    for (let i = 0; i < expected.length; i++) expected[i] = (i * 7919) % 256;
    expect((await readFile(stdoutFile)).equals(Buffer.concat([Buffer.from('earlier attempt\n'), expected]))).toBe(true);
    expect((await readFile(join(dir, 'err.log'))).equals(expected.subarray(0, 1000))).toBe(true);
  });

  it('keeps the last 8 KiB of stderr as the tail', async () => {
    const script = `for (let i = 0; i < 1000; i++) process.stderr.write('line ' + String(i).padStart(4, '0') + '\\n')`;
    const { proc } = start(node(script));
    await proc.exited;
    const tail = proc.stderrTail();
    expect(Buffer.byteLength(tail)).toBe(8192);
    expect(tail.endsWith('line 0999\n')).toBe(true);
    expect(tail).not.toContain('line 0000');
  });

  it('runs with exactly the given env and cwd', async () => {
    const dir = await dirs.make();
    const script = 'console.log(JSON.stringify({ env: process.env, cwd: process.cwd() }))';
    const { proc, lines } = start({ ...node(script), env: { HARMFLOW_ONLY: 'yes' }, cwd: dir });
    await proc.exited;
    const seen = JSON.parse(lines.stdout[0] ?? '{}');
    expect(seen.env).toEqual({ HARMFLOW_ONLY: 'yes' });
    expect(seen.cwd).toBe(dir);
  });

  it('reports the first onLine failure and still delivers later lines', async () => {
    const seen: string[] = [];
    const proc = spawnProcess({
      ...node('console.log("a"); console.log("b")'),
      cwd: process.cwd(),
      env: ENV,
      onLine(_stream, line) {
        seen.push(line);
        if (line === 'a') throw new Error('consumer broke');
      },
    });
    expect(await proc.exited).toEqual({ exitCode: 0, signal: null, error: 'onLine failed: consumer broke' });
    expect(seen).toEqual(['a', 'b']);
  });
});

describe('spawnProcess endings', () => {
  it('reports exit codes and the ending signal', async () => {
    expect(await start(node('process.exit(3)')).proc.exited).toEqual({ exitCode: 3, signal: null });
    expect(await start(node('process.kill(process.pid, "SIGTERM")')).proc.exited).toEqual({
      exitCode: null,
      signal: 'SIGTERM',
    });
  });

  it('resolves a missing executable with an error instead of throwing', async () => {
    const { proc } = start({ command: 'harmflow-no-such-cli', args: ['-p', 'hi'] });
    expect(proc.pid).toBeUndefined();
    expect(await proc.exited).toEqual({ exitCode: null, signal: null, error: 'spawn harmflow-no-such-cli ENOENT' });
    expect(await proc.stop(100)).toEqual(await proc.exited);
    expect(proc.stderrTail()).toBe('');
  });

  it('names a missing working directory rather than blaming the executable', async () => {
    const cwd = join(await dirs.make(), 'deleted-worktree');
    const { proc } = start({ ...node(''), cwd });
    expect(await proc.exited).toEqual({ exitCode: null, signal: null, error: `working directory not found: ${cwd}` });
  });

  it('does not start the process when a raw log cannot be opened', async () => {
    const dir = await dirs.make();
    const marker = join(dir, 'ran');
    const { proc } = start({
      ...node(`require('fs').writeFileSync(${JSON.stringify(marker)}, '')`),
      stdoutFile: join(dir, 'no/such/dir/out.log'),
    });
    const exit = await proc.exited;
    expect(exit.exitCode).toBeNull();
    expect(exit.error).toMatch(/^cannot open raw log: ENOENT/);
    await expect(readFile(marker)).rejects.toThrow();
  });
});

describe('spawnProcess stop and kill', () => {
  it('interrupts with SIGTERM within the budget when the child obeys', async () => {
    const { proc, lineSeen } = start(node('console.log("ready"); setInterval(() => {}, 1000)'));
    await lineSeen('ready');
    const started = Date.now();
    expect(await proc.stop(5000)).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('kills the group with SIGKILL once the budget is spent when SIGTERM is ignored', async () => {
    const { proc, lineSeen } = start({ command: 'sh', args: ['-c', 'trap "" TERM; echo ready; sleep 30'] });
    await lineSeen('ready');
    const pid = proc.pid ?? 0;
    const budget = 400;
    const started = Date.now();
    const exit = await proc.stop(budget);
    const elapsed = Date.now() - started;
    expect(exit).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(elapsed).toBeGreaterThanOrEqual(budget - 5); // timers may fire a few ms early on coarse clocks
    expect(elapsed).toBeLessThan(budget + 1500);
    expect(groupAlive(pid)).toBe(false);
  });

  it('returns the same promise from a second stop() and does not restart the budget', async () => {
    const { proc, lineSeen } = start({ command: 'sh', args: ['-c', 'trap "" TERM; echo ready; sleep 30'] });
    await lineSeen('ready');
    const first = proc.stop(200);
    expect(proc.stop(60_000)).toBe(first);
    expect((await first).signal).toBe('SIGKILL');
  });

  it('leaves no grandchild alive after stop()', async () => {
    const { proc, lines, lineSeen } = start({
      command: 'sh',
      args: ['-c', 'sleep 1000 & echo $!; echo ready; sleep 1000'],
    });
    await lineSeen('ready');
    const grandchild = Number(lines.stdout[0]);
    expect(processAlive(grandchild)).toBe(true);
    await proc.stop(1000);
    expect(groupAlive(proc.pid ?? 0)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
  });

  it('leaves no grandchild alive after kill()', async () => {
    const { proc, lines, lineSeen } = start({
      command: 'sh',
      args: ['-c', 'sleep 1000 & echo $!; echo ready; sleep 1000'],
    });
    await lineSeen('ready');
    const grandchild = Number(lines.stdout[0]);
    proc.kill();
    expect(await proc.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(groupAlive(proc.pid ?? 0)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
  });

  it('does not hang when a grandchild keeps the pipes open after the leader exits', async () => {
    const started = Date.now();
    const { proc, lines } = start({ command: 'sh', args: ['-c', 'sleep 1000 & echo $!; echo done; exit 4'] });
    expect(await proc.exited).toEqual({ exitCode: 4, signal: null });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(lines.stdout[1]).toBe('done');
    expect(groupAlive(proc.pid ?? 0)).toBe(false);
    expect(processAlive(Number(lines.stdout[0]))).toBe(false);
  });

  it('kills a grandchild that closed its pipes when the leader exits normally', async () => {
    const { proc, lines } = start({ command: 'sh', args: ['-c', 'sleep 1000 >/dev/null 2>&1 & echo $!'] });
    expect(await proc.exited).toEqual({ exitCode: 0, signal: null });
    expect(groupAlive(proc.pid ?? 0)).toBe(false);
    expect(processAlive(Number(lines.stdout[0]))).toBe(false);
  });
});
