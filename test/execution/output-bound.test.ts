/**
 * A harness that prints lines of 20 MB (issue 21: one 200 MB line was stored whole in events.jsonl and
 * took the daemon to 1.36 GB): each is cut to the line bound and kept as a `raw` record naming the
 * bytes it dropped, no line of events.jsonl is over the record bound, the attempt's raw stdout.log
 * keeps every byte, and the execution ends as the harness's result says.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECORD_LIMIT_BYTES, readEvents } from '../../src/events/log.js';
import { type Bench, GIT_IDENTITY, makeBench } from './fixture.js';

const SESSION = fileURLToPath(new URL('../fixtures/claude-code/success-tool-use.jsonl', import.meta.url));
const CUT = / … \[HarmFlow dropped (\d+) bytes of this line; the raw log keeps it whole\]$/;
/** 20 MB: a tenth of the line in the issue, enough to be 40 times the line bound. */
const LONG = 20_000_000;

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

describe('a harness printing 20 MB lines', () => {
  it('is recorded within the bound, its raw log keeps every byte, and it ends as it reported', {
    timeout: 20_000,
  }, async () => {
    const session = readFileSync(SESSION, 'utf8').split('\n').filter(Boolean);
    const init = session[0] ?? '';
    const result = session.at(-1) ?? '';
    // A stand-in `claude`: the recorded init, a 20 MB line of text, a 20 MB assistant message, the recorded result.
    const bin = join(bench.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'init.jsonl'), `${init}\n`);
    writeFileSync(join(bin, 'result.jsonl'), `${result}\n`);
    const message = '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"';
    writeFileSync(
      join(bin, 'claude'),
      [
        '#!/bin/sh',
        `cat '${join(bin, 'init.jsonl')}'`,
        `head -c ${LONG} /dev/zero | tr '\\0' x; echo`,
        `printf '%s' '${message}'; head -c ${LONG} /dev/zero | tr '\\0' y; printf '"}]}}\\n'`,
        `cat '${join(bin, 'result.jsonl')}'`,
        '',
      ].join('\n'),
    );
    chmodSync(join(bin, 'claude'), 0o755);

    const ran = await bench.run(bench.task({ harness: 'claude-code' }), {
      hostEnv: { PATH: `${bin}:${process.env.PATH}`, ...GIT_IDENTITY },
    });
    expect(ran.attempts.map((attempt) => attempt.outcome)).toEqual(['completed']);
    expect(ran.state).toBe('succeeded');

    const eventsFile = bench.home.eventsFile(ran.id);
    const lines = readFileSync(eventsFile, 'utf8').split('\n');
    expect(Math.max(...lines.map((line) => Buffer.byteLength(line)))).toBeLessThanOrEqual(RECORD_LIMIT_BYTES);
    const records = readEvents(eventsFile);
    expect(records).toHaveLength(lines.length - 1);
    expect(records.filter((record) => record.truncated !== undefined)).toEqual([]);
    const cut = records.flatMap((record) => (record.type === 'raw' ? [record.data.line] : []));
    const whole = [LONG, message.length + LONG + '"}]}}'.length];
    expect(cut).toHaveLength(2);
    cut.forEach((line, index) => {
      const dropped = Number(CUT.exec(line)?.[1]);
      expect(Buffer.byteLength(line.replace(CUT, '')) + dropped).toBe(whole[index]);
    });
    expect(records.some((record) => record.type === 'result' && record.data.ok)).toBe(true);

    const stdout = join(bench.home.attemptDir(ran.id, 1), 'stdout.log');
    const printed = [init, result].reduce((sum, line) => sum + Buffer.byteLength(line), 0) + LONG * 2;
    expect(statSync(stdout).size).toBe(printed + message.length + '"}]}}'.length + 4);
    const raw = readFileSync(stdout, 'latin1').split('\n');
    expect(raw[1]).toBe('x'.repeat(LONG));
  });
});
