/**
 * Replays what the real CLIs printed (recorded by scripts/record-fixtures.mjs: each verified CLI run
 * through the engine against the loopback model-API simulator) through their adapters, the way an
 * attempt reads them: stdout through the parser, stderr through the watcher, then the classifier.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HARNESS_NAMES, type Outcome } from '../../src/core/outcome.js';
import type { Classification } from '../../src/harnesses/adapter.js';
import { getAdapter } from '../../src/harnesses/registry.js';

const EXPECTED: Record<string, Outcome> = {
  edit: 'completed',
  quota: 'quota_exhausted',
  'rate-limit': 'rate_limited',
  overload: 'overloaded',
};

const Exit = z.object({ exitCode: z.int().nullable(), signal: z.string().nullable() });

function fixture(harness: string, file: string): string | undefined {
  const path = fileURLToPath(new URL(`../fixtures/${harness}/recorded/${file}`, import.meta.url));
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => index < all.length - 1 || line !== '');
}

describe.each(HARNESS_NAMES)('recorded real %s output', (harness) => {
  const adapter = getAdapter(harness);
  for (const [name, outcome] of Object.entries(EXPECTED)) {
    it(`${name} → ${outcome}`, () => {
      const stdout = fixture(harness, `${name}.jsonl`);
      const stderr = fixture(harness, `${name}.stderr.log`);
      const exit = fixture(harness, `${name}.exit.json`);
      if (stdout === undefined || stderr === undefined || exit === undefined) {
        throw new Error(`test/fixtures/${harness}/recorded/${name}.* missing: run scripts/record-fixtures.mjs`);
      }
      const parse = adapter.createParser();
      const events = lines(stdout).flatMap((line) => parse(line));
      expect(events.filter((event) => event.type === 'raw')).toEqual([]);
      const watch = adapter.createStderrWatcher?.();
      let early: Classification | undefined;
      for (const line of lines(stderr)) early ??= watch?.(line);
      const { exitCode, signal } = Exit.parse(JSON.parse(exit));
      const classification =
        early ?? adapter.classify({ exitCode, signal, events, stderrTail: stderr.slice(-8192), timeZone: 'UTC' });
      expect(classification.outcome).toBe(outcome);
      if (outcome === 'completed') {
        expect(
          events.some(
            (event) => event.type === 'tool.call' && event.data.files?.some((file) => file.endsWith('notes.txt')),
          ),
        ).toBe(true);
        expect(events.some((event) => event.type === 'usage')).toBe(true);
      }
    });
  }
});
