import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  loadScriptsFile,
  parseScripts,
  type Reply,
  ScriptCursor,
  ScriptError,
} from '../../../src/simulators/model-api/script.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function problem(data: unknown): string {
  try {
    parseScripts(data, 's.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScriptError);
    return (error as Error).message;
  }
  throw new Error('expected a ScriptError');
}

describe('scripts', () => {
  it('validates every reply kind into a tagged reply; a bare string is text', () => {
    const scripts = parseScripts(
      {
        all: [
          'hello',
          { text: 'x' },
          { limitWarning: { text: 'y', utilization: 0.96 } },
          { write: { path: 'a.txt', content: '' } },
          { shell: { command: 'ls' } },
          { quota: true },
          { quota: { inStream: true } },
          { rateLimit: { times: 2, retryAfter: 3 } },
          { overload: {} },
          { serverError: true },
          { authError: true },
        ],
      },
      'test',
    );
    expect(scripts.all).toEqual([
      { kind: 'text', text: 'hello' },
      { kind: 'text', text: 'x' },
      { kind: 'limitWarning', text: 'y', utilization: 0.96 },
      { kind: 'write', path: 'a.txt', content: '' },
      { kind: 'shell', command: 'ls' },
      { kind: 'quota', inStream: false },
      { kind: 'quota', inStream: true },
      { kind: 'rateLimit', times: 2, retryAfter: 3, inStream: false },
      { kind: 'overload', inStream: false },
      { kind: 'serverError', inStream: false },
      { kind: 'authError', inStream: false },
    ]);
  });

  it('names the place and the problem of each mistake', () => {
    expect(problem({ a: [{ text: 'x', shell: { command: 'y' } }] })).toBe(
      's.yaml is invalid: a.0: a reply has exactly one of: text, limitWarning, write, shell, quota, rateLimit, overload, serverError, authError',
    );
    expect(problem({ a: ['ok', { wrte: {} }] })).toBe('s.yaml is invalid: a.1: Unrecognized key: "wrte"');
    expect(problem({ a: [{ write: { path: 'x' } }] })).toMatch(/^s\.yaml is invalid: a\.0\.write\.content: /);
    expect(problem({ a: [] })).toMatch(/^s\.yaml is invalid: a: Too small/);
    expect(problem({ 'two words': ['x'] })).toBe(
      's.yaml is invalid: two words: a script name uses letters, digits, ".", "_" or "-" (at most 64)',
    );
    expect(problem({ a: [3] })).toBe('s.yaml is invalid: a.0: a reply is a string or an object with one key');
    expect(problem({ a: [{ quota: false }] })).toBe(
      's.yaml is invalid: a.0.quota: expected true or {inStream: boolean}',
    );
    expect(problem({ a: [{ quota: { inStream: 'yes' } }] })).toMatch(/^s\.yaml is invalid: a\.0\.quota\.inStream: /);
    expect(problem({ a: [{ limitWarning: { text: 'x', utilization: 1.5 } }] })).toMatch(
      /^s\.yaml is invalid: a\.0\.limitWarning\.utilization: /,
    );
    expect(problem({ a: [{ rateLimit: { times: 0 } }] })).toMatch(/^s\.yaml is invalid: a\.0\.rateLimit\.times: /);
  });

  it('reads YAML and JSON files, and says what is wrong with a bad one', async () => {
    dir = await mkdtemp(join(tmpdir(), 'harmflow-scripts-'));
    const yaml = join(dir, 's.yaml');
    await writeFile(yaml, 'scripts:\n  w:\n    - write: { path: a.txt, content: "x\\n" }\n    - Done.\n');
    expect(await loadScriptsFile(yaml)).toEqual({ w: [{ write: { path: 'a.txt', content: 'x\n' } }, 'Done.'] });
    const json = join(dir, 's.json');
    await writeFile(json, JSON.stringify({ scripts: { q: [{ quota: true }] } }));
    expect(await loadScriptsFile(json)).toEqual({ q: [{ quota: true }] });

    await expect(loadScriptsFile(join(dir, 'missing.yaml'))).rejects.toThrow(/^cannot read scripts file/);
    await writeFile(json, '{');
    await expect(loadScriptsFile(json)).rejects.toThrow(/is not valid JSON$/);
    await writeFile(yaml, 'w: [x]\n');
    await expect(loadScriptsFile(yaml)).rejects.toThrow(/must be a mapping with one key, "scripts"$/);
    await writeFile(yaml, 'scripts:\n  w: [{ txt: x }]\n');
    await expect(loadScriptsFile(yaml)).rejects.toThrow(
      `scripts file ${yaml} is invalid: w.0: Unrecognized key: "txt"`,
    );
  });
});

describe('ScriptCursor', () => {
  const text = (t: string): Reply => ({ kind: 'text', text: t });

  it('gives each request the next reply; the last repeats', () => {
    const cursor = new ScriptCursor([text('a'), text('b')]);
    expect([0, 1, 2, 3].map(() => cursor.next().index)).toEqual([0, 1, 1, 1]);
  });

  it('holds a rateLimit reply for `times` requests, then moves on', () => {
    const cursor = new ScriptCursor([
      { kind: 'rateLimit', times: 3, inStream: false },
      text('a'),
      { kind: 'rateLimit', times: 2, inStream: false },
    ]);
    expect([...Array(8)].map(() => cursor.next().index)).toEqual([0, 0, 0, 1, 2, 2, 2, 2]);
  });
});
