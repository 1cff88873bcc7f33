/**
 * A stream line over the line bound, as an attempt reads it: the splitter cuts it (proc/lines.ts),
 * the cut JSON no longer parses, and each adapter keeps it as one `raw` event carrying the marker,
 * never a crash; that event's record fits the record bound as it is, so the marker with its count
 * reaches events.jsonl.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HARNESS_NAMES } from '../../src/core/outcome.js';
import { openEventLog, RECORD_LIMIT_BYTES } from '../../src/events/log.js';
import { getAdapter } from '../../src/harnesses/registry.js';
import { LineSplitter } from '../../src/proc/lines.js';

const CUT = / … \[HarmFlow dropped (\d+) bytes of this line; the raw log keeps it whole\]$/;
const root = mkdtempSync(join(tmpdir(), 'harmflow-cut-line-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Each line of the harness's recorded real session, grown past 5 MiB by a field of its own text. */
function grownLines(harness: string): string[] {
  const path = fileURLToPath(new URL(`../fixtures/${harness}/recorded/edit.jsonl`, import.meta.url));
  const recorded = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const text = recorded.join('\n');
  const padding = text.repeat(Math.ceil((5 * 1024 * 1024) / text.length));
  return recorded.map((line) => JSON.stringify({ ...JSON.parse(line), padding }));
}

function split(line: string): string {
  const lines: string[] = [];
  const splitter = new LineSplitter((cut) => lines.push(cut));
  const bytes = Buffer.from(`${line}\n`);
  for (let at = 0; at < bytes.length; at += 65_536) splitter.push(bytes.subarray(at, at + 65_536));
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

describe.each(HARNESS_NAMES)('%s on a stream line over the bound', (harness) => {
  it('keeps the cut line as one raw event with the marker, whose record fits the bound uncut', () => {
    const log = openEventLog(join(root, harness, 'events.jsonl'), { execution: 'e1' });
    for (const grown of grownLines(harness)) {
      const line = split(grown);
      const dropped = Number(CUT.exec(line)?.[1]);
      expect(dropped).toBe(Buffer.byteLength(grown) - Buffer.byteLength(line.replace(CUT, '')));
      const raw = { type: 'raw', data: { stream: 'stdout', line } } as const;
      expect(getAdapter(harness).createParser()(line)).toEqual([raw]);
      const record = log.append({ attempt: 1, harness, source: 'harness', ...raw });
      expect(record.truncated).toBeUndefined();
      expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThanOrEqual(RECORD_LIMIT_BYTES);
    }
    log.close();
  });
});
