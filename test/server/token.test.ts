import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HomePaths, harmflowHome } from '../../src/core/home.js';
import { loadOrCreateToken, TokenFileError, tokensEqual } from '../../src/server/token.js';
import { tokenFile } from '../../src/server/token-file.js';

let dir: string;
let home: HomePaths;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-token-'));
  home = harmflowHome(join(dir, 'home'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loadOrCreateToken', () => {
  it('creates a 0600 token file on first use and reuses it after', () => {
    const first = loadOrCreateToken(home, {});
    expect(first.created).toBe(true);
    expect(first.from).toBe('file');
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = tokenFile(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${first.token}\n`);

    const second = loadOrCreateToken(home, {});
    expect(second).toEqual({ token: first.token, created: false, from: 'file' });
  });

  it('takes HARMFLOW_TOKEN over the file and writes nothing', () => {
    const created = loadOrCreateToken(home, {});
    expect(loadOrCreateToken(home, { HARMFLOW_TOKEN: 'from-env' })).toEqual({
      token: 'from-env',
      created: false,
      from: 'env',
    });
    expect(readFileSync(tokenFile(home), 'utf8')).toBe(`${created.token}\n`);
  });

  it('ignores an empty HARMFLOW_TOKEN and refuses one with whitespace', () => {
    expect(loadOrCreateToken(home, { HARMFLOW_TOKEN: '' }).created).toBe(true);
    expect(() => loadOrCreateToken(home, { HARMFLOW_TOKEN: 'two words' })).toThrow(TokenFileError);
  });

  it('refuses a token file that others can read, or one that holds no token', () => {
    loadOrCreateToken(home, {});
    chmodSync(tokenFile(home), 0o644);
    expect(() => loadOrCreateToken(home, {})).toThrow(/readable by others/);
    writeFileSync(tokenFile(home), '\n', { mode: 0o600 });
    chmodSync(tokenFile(home), 0o600);
    expect(() => loadOrCreateToken(home, {})).toThrow(/does not hold a token/);
  });
});

describe('tokensEqual', () => {
  it('is true only for the same token, whatever the lengths', () => {
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abd')).toBe(false);
    expect(tokensEqual('abc', 'abcd')).toBe(false);
    expect(tokensEqual('', 'abc')).toBe(false);
  });
});
