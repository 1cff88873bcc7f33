import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newExecutionId } from '../../../src/core/ids.js';
import { readEvents } from '../../../src/events/log.js';
import { readRecordLines } from '../../../src/events/mirror/record-lines.js';
import { logDirectory, message, toolCall, writeLog } from './logs.js';

const logs = logDirectory();

async function lines(path: string, from: number) {
  const found = [];
  for await (const batch of readRecordLines(path, from)) found.push(...batch);
  return found;
}

describe('readRecordLines', () => {
  it('numbers records as readEvents does: other lines take no position, a partial last line waits', async () => {
    const execution = newExecutionId();
    const path = logs.path('numbering');
    const [first, second] = writeLog(path, execution, [message('0'), toolCall('t-1')]);
    const foreign = JSON.stringify({ ts: 'x', execution, source: 'executor', type: 'message', data: { text: 1 } });
    appendFileSync(path, `not json\n\n${foreign}\n`);
    const [third] = writeLog(path, execution, [message('2')]).slice(-1);
    const partial = JSON.stringify({ ts: 'x', execution, source: 'executor', type: 'message', data: { text: '3' } });
    appendFileSync(path, partial.slice(0, 30));

    const found = await lines(path, 0);
    expect(found.map(({ position, line }) => ({ position, line }))).toEqual([
      { position: 0, line: first },
      { position: 1, line: second },
      { position: 2, line: third },
    ]);
    expect(found.map(({ record }) => record)).toStrictEqual(readEvents(path));
    expect((await lines(path, 2)).map(({ position }) => position)).toEqual([2]);
    expect(await lines(path, 3)).toEqual([]);

    appendFileSync(path, `${partial.slice(30)}\n`);
    expect((await lines(path, 3)).map(({ position, line }) => ({ position, line }))).toEqual([
      { position: 3, line: partial },
    ]);
  });

  it('keeps each line as the file holds it across reads, multi-byte characters whole', async () => {
    const execution = newExecutionId();
    const path = logs.path('chunks');
    // ≈200 KB: records cut across several 64 KiB reads, some of them inside a 4-byte character.
    const written = writeLog(
      path,
      execution,
      Array.from({ length: 700 }, (_, index) => message(`${'é🙂'.repeat(index % 90)} ${index}`)),
    );
    const found = await lines(path, 0);
    expect(found.map(({ line }) => line)).toEqual(written);
    expect(found.map(({ position }) => position)).toEqual(written.map((_, index) => index));
    expect(found.map(({ record }) => record)).toStrictEqual(readEvents(path));
  });

  it('has no records for a missing file', async () => {
    expect(await lines(logs.path('missing'), 0)).toEqual([]);
  });
});
