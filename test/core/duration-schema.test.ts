/**
 * The task file's JSON schema and `harmflow run` agree on durations (issue 25: `timeout: 5 minutes`
 * passed the schema, not `run`). The published schema's duration `pattern` is DURATION_PATTERN, the
 * parser's own grammar; a table of values is checked against the published file and the parser, and
 * random texts against a reading of the grammar part by part, written here independently.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DURATION_PATTERN, parseDuration } from '../../src/core/duration.js';
import { TaskFile } from '../../src/core/task.js';
import { seededRandom } from '../seeded-random.js';

const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schemas', 'task.schema.json');

interface DurationSchema {
  readonly anyOf: readonly [{ type: 'string'; pattern: string }, { type: 'number'; exclusiveMinimum: number }];
  readonly description: string;
}
const properties = (JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as { properties: Record<string, DurationSchema> })
  .properties;
const DURATION_FIELDS = ['timeout', 'interruptBudget', 'maxWait', 'quotaCoolDown'] as const;

/** Whether the published schema of `field` accepts `value`, as an editor's validator reads it (ECMAScript, `u`). */
function schemaAccepts(field: string, value: unknown): boolean {
  const [text, number] = properties[field]?.anyOf ?? [];
  if (typeof value === 'string') return text !== undefined && new RegExp(text.pattern, 'u').test(value);
  if (typeof value === 'number') return number !== undefined && value > number.exclusiveMinimum;
  return false;
}

/** Whether the task parser accepts `value` as the field's form, its maximum aside. */
function parserAccepts(value: string | number): boolean {
  return parseDuration(value) !== undefined;
}

const TABLE: readonly [string | number, boolean][] = [
  ['45m', true],
  ['1h30m', true],
  ['90s', true],
  ['500ms', true],
  ['2d', true],
  ['1.5h', true],
  ['1m500ms', true],
  [' 45m ', true],
  ['600', true],
  ['0.5', true],
  ['00:30', false],
  ['5 minutes', false],
  ['1h 30m', false],
  ['45 m', false],
  ['45M', false],
  ['1m30', false],
  ['h1', false],
  ['1e3', false],
  ['-5m', false],
  ['+5m', false],
  ['.5s', false],
  ['5.s', false],
  ['', false],
  ['   ', false],
  ['0', false],
  ['0.0', false],
  ['0s', false],
  ['0h0m', false],
  ['00ms', false],
  ['0h1m', true],
  ['0.01s', true],
  [600, true],
  [0.5, true],
  [0, false],
  [-1, false],
];

describe('durations in the published schema and in the parser', () => {
  it('publish the parser’s own grammar as the pattern of every duration field, with its maximum in words', () => {
    for (const field of DURATION_FIELDS) {
      const schema = properties[field];
      expect(schema?.anyOf[0], field).toStrictEqual({ type: 'string', pattern: DURATION_PATTERN });
      expect(schema?.anyOf[1], field).toStrictEqual({ type: 'number', exclusiveMinimum: 0 });
      expect(schema?.description, field).toMatch(/a duration \(.*\) of at most \d+h$/);
    }
  });

  it.each(TABLE)('agree on %j (accepted: %s)', (value, accepted) => {
    expect(parserAccepts(value)).toBe(accepted);
    for (const field of DURATION_FIELDS) expect(schemaAccepts(field, value), field).toBe(accepted);
    const parsed = TaskFile.safeParse({ name: 't', prompt: 'p', harness: 'codex', timeout: value });
    expect(parsed.success).toBe(accepted);
  });

  it('refuse `timeout: 5 minutes` in both, with the parser’s words', () => {
    const parsed = TaskFile.safeParse({ name: 't', prompt: 'p', harness: 'codex', timeout: '5 minutes' });
    expect(parsed.error?.issues.map((issue) => issue.message)).toStrictEqual([
      'not a duration (examples: 45m, 1h30m, 90s, 600)',
    ]);
    expect(schemaAccepts('timeout', '5 minutes')).toBe(false);
  });

  it('agree with a reading of the grammar part by part on 20,000 random texts', () => {
    const random = seededRandom(25);
    const alphabet = ['0', '1', '5', '9', '.', 'm', 's', 'h', 'd', ' ', '-', 'x'];
    const disagreements: string[] = [];
    for (let round = 0; round < 20_000; round++) {
      const length = Math.floor(random() * 7);
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const expected = readByParts(text);
      if (parserAccepts(text) !== expected || schemaAccepts('timeout', text) !== expected) {
        disagreements.push(JSON.stringify(text));
      }
    }
    expect(disagreements).toStrictEqual([]);
  });
});

/**
 * The grammar read the long way, independent of DURATION_PATTERN: trimmed, either a decimal number
 * of seconds or one or more `<decimal><unit>` parts back to back, the total above zero.
 */
function readByParts(text: string): boolean {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) > 0;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    const part = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)/.exec(trimmed.slice(at));
    if (part === null) return false;
    total += Number(part[1]);
    at += part[0].length;
  }
  return at > 0 && total > 0;
}
