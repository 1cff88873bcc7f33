import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contextJsonSchema, TASK_SCHEMA_ID, taskJsonSchema } from '../../src/cli/schema.js';
import { HARNESS_NAMES } from '../../src/core/outcome.js';
import { TaskFile } from '../../src/core/task.js';
import { loadTaskFile } from '../../src/core/task-file.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCHEMA_FILE = join(ROOT, 'schemas', 'task.schema.json');
const EXAMPLE_FILE = join(ROOT, 'examples', 'task.yaml');

interface JsonSchema {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  items?: JsonSchema;
  pattern?: string;
  minLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  default?: unknown;
  title?: string;
  $id?: string;
  $schema?: string;
}

const published = (): JsonSchema => JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as JsonSchema;

/**
 * The JSON-schema checks a task file's consumers (editors, CI linters) rely on: required fields,
 * no unknown fields, types, enums, patterns and minimums. Enough to tell whether the published
 * schema accepts a task; not a general validator.
 */
function violations(schema: JsonSchema, value: unknown, path = '$'): string[] {
  if (schema.anyOf) {
    const options = schema.anyOf.map((option) => violations(option, value, path));
    return options.some((found) => found.length === 0) ? [] : [`${path}: matches no option`];
  }
  const found: string[] = [];
  const types = schema.type === undefined ? [] : [schema.type].flat();
  const typeOf = Array.isArray(value)
    ? 'array'
    : Number.isInteger(value)
      ? 'integer'
      : value === null
        ? 'null'
        : typeof value;
  if (types.length && !types.some((type) => type === typeOf || (type === 'number' && typeOf === 'integer'))) {
    return [`${path}: expected ${types.join('|')}, got ${typeOf}`];
  }
  if (schema.enum && !schema.enum.includes(value)) found.push(`${path}: not one of ${schema.enum.join(', ')}`);
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value))
      found.push(`${path}: does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && value.length < schema.minLength) found.push(`${path}: too short`);
  }
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum)
    found.push(`${path}: too small`);
  if (typeof value === 'number' && schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
    found.push(`${path}: too small`);
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => {
      found.push(...violations(schema.items as JsonSchema, item, `${path}[${index}]`));
    });
  }
  if (typeOf === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) found.push(`${path}.${key}: required`);
    for (const [key, child] of Object.entries(object)) {
      const property = schema.properties?.[key];
      if (property) found.push(...violations(property, child, `${path}.${key}`));
      else if (schema.additionalProperties === false) found.push(`${path}.${key}: unknown field`);
      else if (typeof schema.additionalProperties === 'object') {
        found.push(...violations(schema.additionalProperties, child, `${path}.${key}`));
      }
    }
  }
  return found;
}

describe('schemas/task.schema.json', () => {
  it('is exactly what taskJsonSchema() generates', () => {
    expect(
      readFileSync(SCHEMA_FILE, 'utf8'),
      'schemas/task.schema.json is stale: regenerate it with `npm run build && node bin/harmflow.js schema > schemas/task.schema.json`',
    ).toBe(taskJsonSchema());
  });

  it('requires name, prompt and harness, and refuses unknown fields', () => {
    const schema = published();
    expect(schema.title).toBe('HarmFlow task file');
    expect(schema.$id).toBe(TASK_SCHEMA_ID);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.type).toBe('object');
    expect(schema.required).toStrictEqual(['name', 'prompt', 'harness']);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties ?? {})).toStrictEqual([
      'name',
      'repo',
      'baseRef',
      'prompt',
      'harness',
      'fallbacks',
      'maxSwitches',
      'timeout',
      'interruptBudget',
      'failoverOn',
      'waitForReset',
      'maxWait',
      'quotaCoolDown',
      'countManualSwitches',
      'switchAtUtilization',
      'gates',
      'sandbox',
      'caches',
    ]);
    expect(schema.properties?.repo?.default).toBe('.');
    expect(schema.properties?.baseRef?.default).toBe('HEAD');
    expect(schema.properties?.timeout?.default).toBe('30m');
  });

  it('names every harness, in the short and the long form', () => {
    const harness = published().properties?.harness;
    const [short, long] = harness?.anyOf ?? [];
    expect(short?.enum).toStrictEqual([...HARNESS_NAMES]);
    expect(short?.enum).toContain('claude-code');
    expect(short?.enum).toContain('codex');
    expect(long?.properties?.harness?.enum).toStrictEqual([...HARNESS_NAMES]);
    expect(long?.required).toStrictEqual(['harness']);
    expect(long?.additionalProperties).toBe(false);
    expect(published().properties?.fallbacks?.items).toStrictEqual(harness?.anyOf && { anyOf: harness.anyOf });
  });

  it('lists as failoverOn outcomes only those that may switch', () => {
    expect(published().properties?.failoverOn?.items?.enum).toStrictEqual([
      'quota_exhausted',
      'rate_limited',
      'overloaded',
      'auth_failed',
      'failed',
      'crashed',
    ]);
  });

  it('accepts valid tasks and refuses invalid ones, agreeing with the zod schema', () => {
    const schema = published();
    const valid: unknown[] = [
      { name: 'fix-dates', prompt: 'Fix it.', harness: 'claude-code' },
      {
        name: 'iso-week',
        repo: '../app',
        baseRef: 'main',
        prompt: 'Add ISO weeks.',
        harness: { harness: 'claude-code', model: 'claude-sonnet-4-5', passEnv: ['ANTHROPIC_API_KEY'] },
        fallbacks: ['codex', { harness: 'codex', args: ['-c', 'x=1'], env: { A: 'b' } }],
        maxSwitches: 2,
        timeout: 600,
        failoverOn: ['rate_limited'],
      },
    ];
    for (const task of valid) {
      expect(violations(schema, task), JSON.stringify(task)).toStrictEqual([]);
      expect(TaskFile.safeParse(task).success).toBe(true);
    }
    const invalid: [unknown, string][] = [
      [{ prompt: 'p', harness: 'codex' }, '$.name: required'],
      [{ name: 't', harness: 'codex' }, '$.prompt: required'],
      [{ name: 't', prompt: 'p' }, '$.harness: required'],
      [{ name: 't', prompt: 'p', harness: 'aider' }, '$.harness: matches no option'],
      [{ name: 't', prompt: 'p', harness: { harness: 'codex', modle: 'x' } }, '$.harness: matches no option'],
      [{ name: 't', prompt: 'p', harness: 'codex', fallback: ['codex'] }, '$.fallback: unknown field'],
      [{ name: 'bad name', prompt: 'p', harness: 'codex' }, '$.name: does not match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'],
      [{ name: 't', prompt: 'p', harness: 'codex', maxSwitches: -1 }, '$.maxSwitches: too small'],
      [{ name: 't', prompt: 'p', harness: 'codex', timeout: '5 minutes' }, '$.timeout: matches no option'],
      [{ name: 't', prompt: 'p', harness: 'codex', quotaCoolDown: 0 }, '$.quotaCoolDown: matches no option'],
      [
        { name: 't', prompt: 'p', harness: 'codex', failoverOn: ['completed'] },
        '$.failoverOn[0]: not one of quota_exhausted, rate_limited, overloaded, auth_failed, failed, crashed',
      ],
    ];
    for (const [task, problem] of invalid) {
      expect(violations(schema, task), JSON.stringify(task)).toStrictEqual([problem]);
      expect(TaskFile.safeParse(task).success).toBe(false);
    }
  });
});

describe('examples/task.yaml', () => {
  it('is a valid task for the real harnesses, claude-code then codex', () => {
    const task = loadTaskFile(EXAMPLE_FILE);
    expect(task.name).toBe('iso-week-dates');
    expect(task.repo).toBe(join(ROOT, 'examples'));
    expect(task.baseRef).toBe('main');
    expect(task.chain.map((spec) => spec.harness)).toStrictEqual(['claude-code', 'codex']);
    expect(task.chain.every((spec) => spec.simulate === undefined)).toBe(true);
    expect(task.chain[0]?.passEnv).toContain('ANTHROPIC_API_KEY');
    expect(task.chain[1]?.passEnv).toContain('OPENAI_API_KEY');
    expect(task.chain[1]?.args.join(' ')).toContain('env_key = "OPENAI_API_KEY"');
    expect(task.maxSwitches).toBe(1);
    expect(task.timeoutMs).toBe(45 * 60_000);
    expect(task.switchOn).toStrictEqual(new Set(['quota_exhausted']));
  });

  it('validates against the published JSON schema', () => {
    const example: unknown = parse(readFileSync(EXAMPLE_FILE, 'utf8'));
    expect(violations(published(), example)).toStrictEqual([]);
  });
});

describe('schemas/context.schema.json', () => {
  const CONTEXT_FILE = join(ROOT, 'schemas', 'context.schema.json');

  it('is exactly what contextJsonSchema() generates', () => {
    expect(
      readFileSync(CONTEXT_FILE, 'utf8'),
      'schemas/context.schema.json is stale: regenerate it with `npm run build && node bin/harmflow.js schema context > schemas/context.schema.json`',
    ).toBe(contextJsonSchema());
  });

  /** Every property below `schema`, with its path, except inside `lastOperation` (an event payload, described as a whole). */
  function properties(
    schema: JsonSchema & { description?: string },
    path: string,
  ): [string, JsonSchema & { description?: string }][] {
    const own = Object.entries(schema.properties ?? {}).flatMap(([key, child]) => {
      const at = `${path}.${key}`;
      const nested = key === 'lastOperation' ? [] : properties(child, at);
      return [[at, child] as [string, JsonSchema & { description?: string }], ...nested];
    });
    const items = schema.items ? properties(schema.items, `${path}[]`) : [];
    return [...own, ...items];
  }

  it('says where every field comes from (each property has a description)', () => {
    const schema = JSON.parse(readFileSync(CONTEXT_FILE, 'utf8')) as JsonSchema;
    const all = properties(schema, '$');
    expect(all.length).toBeGreaterThan(60);
    expect(all.filter(([, child]) => !child.description).map(([path]) => path)).toStrictEqual([]);
    const item = (schema.properties?.attempts?.items?.properties?.workItems?.items ?? {}) as JsonSchema & {
      description?: string;
    };
    expect(Object.keys(item.properties ?? {})).toStrictEqual([
      'text',
      'reported',
      'filesChanged',
      'commits',
      'push',
      'pullRequest',
      'testRuns',
      'tried',
      'unconfirmed',
    ]);
    expect(item.properties?.reported).toMatchObject({ description: expect.stringContaining('reported') });
    expect(item.properties?.commits).toMatchObject({ description: expect.stringContaining('on the branch') });
  });
});
