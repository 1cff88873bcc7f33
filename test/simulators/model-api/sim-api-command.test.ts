import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSimApi, serveSimApi } from '../../../src/cli/sim-api.js';
import { UsageError } from '../../../src/core/errors.js';
import { formatRecord } from '../../../src/simulators/model-api/log.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Resolves with the first printed line matching `pattern`, polling the lines printed so far. */
async function lineMatching(lines: string[], pattern: RegExp): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = lines.find((l) => pattern.test(l));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no line matched ${pattern}: ${lines.join(' | ')}`);
}

describe('harmflow sim-api', () => {
  it('serves a scripts file, prints its URL and one line per request, logs JSONL, and stops on abort', async () => {
    dir = await mkdtemp(join(tmpdir(), 'harmflow-sim-api-'));
    const script = join(dir, 'scripts.yaml');
    const log = join(dir, 'requests.jsonl');
    await writeFile(script, 'scripts:\n  done:\n    - All done.\n  quota:\n    - quota: true\n');
    const lines: string[] = [];
    const stop = new AbortController();
    const served = serveSimApi({ script, port: 0, log }, (line) => lines.push(line), stop.signal);
    const url = (await lineMatching(lines, /^harmflow sim-api listening on /)).split(' ').at(-1) ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines).toContain(`  script quota: ${url}/quota`);

    const response = await fetch(`${url}/quota/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'Fix the bug' }], tools: [] }),
    });
    expect(response.status).toBe(429);
    const line = await lineMatching(lines, /POST \/v1\/chat\/completions/);
    expect(line).toMatch(
      / {2}quota {2}openai-chat {2}POST \/v1\/chat\/completions {2}sim-model {2}→ #0 quota 429 {2}"Fix the bug"$/,
    );

    stop.abort();
    await served;
    expect(lines.at(-1)).toBe('stopped after 1 request');
    const record = JSON.parse(await readFile(log, 'utf8'));
    expect(record).toMatchObject({ script: 'quota', served: 'quota', status: 429, lastUserText: 'Fix the bug' });
    expect(formatRecord(record)).toBe(line);
  });

  it('reports an invalid scripts file as a usage error naming the problem', async () => {
    dir = await mkdtemp(join(tmpdir(), 'harmflow-sim-api-'));
    const script = join(dir, 'scripts.yaml');
    await writeFile(script, 'scripts:\n  s:\n    - quota: maybe\n');
    const run = serveSimApi({ script, port: 0 }, () => {}, AbortSignal.abort());
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      `scripts file ${script} is invalid: s.0.quota: expected true or {inStream: boolean}`,
    );
  });

  it('registers the command with --script, --port and --log; a bad port is a usage error', async () => {
    const program = new Command('harmflow').exitOverride();
    registerSimApi(program);
    const command = program.commands.find((c) => c.name() === 'sim-api');
    expect(command?.options.map((o) => o.long)).toEqual(['--script', '--port', '--log']);
    await expect(
      program.parseAsync(['sim-api', '--script', 'x.yaml', '--port', '70000'], { from: 'user' }),
    ).rejects.toThrow('--port: not a port: 70000');
  });
});
