import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  componentsText,
  type FingerprintComponents,
  fingerprintOf,
  fingerprintWithText,
  rerunReasons,
} from '../../src/workflows/fingerprint.js';
import { seededRandom } from '../seeded-random.js';

const base: FingerprintComponents = {
  workflow: 'statements',
  step: 'narrative',
  version: '1',
  item: 'c-0001',
  params: {},
  inputs: [['totals', 'c-0001', 'ab'.repeat(32)]],
};

describe('canonicalJson', () => {
  it('sorts object keys at every level, keeps array order, and escapes as JSON does', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x"y' }, 2] })).toBe('{"a":[{"c":"x\\"y","d":null},2],"b":1}');
  });

  it('leaves out a key whose value is undefined, as JSON.stringify does, so the text parses back to the value', () => {
    const model = { provider: 'stand-in', temperature: undefined, name: 'm' };
    const text = canonicalJson({ model, z: undefined } as never);
    expect(text).toBe('{"model":{"name":"m","provider":"stand-in"}}');
    expect(JSON.parse(text)).toEqual({ model });
  });
});

describe('componentsText', () => {
  it('is canonicalJson of the components, whatever they hold', () => {
    const random = seededRandom(7);
    const text = () => `k-${Math.floor(random() * 1e6)}"\\ü`;
    for (let round = 0; round < 200; round += 1) {
      const components: FingerprintComponents = {
        workflow: text(),
        step: text(),
        version: text(),
        item: text(),
        params: round % 2 === 0 ? {} : { month: '2026-10', nested: { z: [1, 2], a: true }, [text()]: null },
        ...(round % 3 === 0 && {
          model: { provider: 'stand-in', name: text(), temperature: 0, ...(round % 5 === 0 && { maxOutputTokens: 9 }) },
        }),
        inputs: Array.from({ length: round % 4 }, () => [text(), text(), 'f'.repeat(64)] as const),
        ...(round % 7 === 0 && { invalidated: new Date(round * 1e9).toISOString() }),
      };
      expect(componentsText(components)).toBe(canonicalJson(components as never));
    }
  });

  it('hashes exactly the canonical text, so fingerprints stored before stay valid', () => {
    const text = `{"inputs":[["totals","c-0001","${'ab'.repeat(32)}"]],"item":"c-0001","params":{},"step":"narrative","version":"1","workflow":"statements"}`;
    expect(componentsText(base)).toBe(text);
    expect(fingerprintOf(base)).toBe(createHash('sha256').update(text).digest('hex'));
    expect(fingerprintOf(base)).toBe('3375c0bca6381af17f3302fa799047d53bcef1b3ffe8fc1192d82af36737ce59');
    expect(fingerprintWithText(base)).toEqual({ text, fingerprint: fingerprintOf(base) });
  });
});

describe('rerunReasons', () => {
  it('names each component that differs, and new without earlier components', () => {
    expect(rerunReasons(undefined, base)).toEqual(['new']);
    expect(rerunReasons(base, base)).toEqual([]);
    expect(rerunReasons(base, { ...base, version: '2', params: { month: 'x' } })).toEqual(['version', 'params']);
  });
});
