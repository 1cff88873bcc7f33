/**
 * The API token: the bearer secret every `/api` request carries. `HARMFLOW_TOKEN` in the environment
 * sets it (for scripts and tests); otherwise it lives in `<HARMFLOW_HOME>/token`, readable by its
 * owner only, made on the first start of the service and reused after.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { EXIT, HarmflowError } from '../core/errors.js';
import { type HomePaths, makePrivateDir, PRIVATE_FILE_MODE } from '../core/home.js';
import { tokenFile } from './token-file.js';

/** 32 random bytes: 256 bits, beyond guessing; base64url keeps it one header-safe word of 43 characters. */
const TOKEN_BYTES = 32;

/** A token is one word: no whitespace, so it survives a header, a shell variable and a file's newline. */
const Token = z.string().regex(/^\S+$/, 'a token is one word without whitespace');

/** A token file that cannot be used: unreadable, empty, or readable by other users. */
export class TokenFileError extends HarmflowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.internal, options);
  }
}

export interface LoadedToken {
  readonly token: string;
  /** True when this call made the token file: the caller prints the token, once. */
  readonly created: boolean;
  /** Where the token came from: the environment (`HARMFLOW_TOKEN`) or the token file. */
  readonly from: 'env' | 'file';
}

/**
 * Loads the API token: `HARMFLOW_TOKEN` (when set and not empty) wins; else the token file; else it
 * makes a new token and writes the file with mode 0600. The file appears whole or not at all, and of
 * two processes starting at once exactly one creates it (the other reads it). Rejects a token file
 * that others can read, as ssh does with keys.
 */
export function loadOrCreateToken(home: HomePaths, env: NodeJS.ProcessEnv = process.env): LoadedToken {
  const fromEnv = env.HARMFLOW_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    const parsed = Token.safeParse(fromEnv);
    if (!parsed.success) throw new TokenFileError('HARMFLOW_TOKEN must be one word without whitespace');
    return { token: parsed.data, created: false, from: 'env' };
  }
  const file = tokenFile(home);
  const existing = readTokenFile(file);
  if (existing !== undefined) return { token: existing, created: false, from: 'file' };
  makePrivateDir(home.root);
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${token}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    linkSync(temp, file); // unlike rename, link fails when the file exists: the first creator wins
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = readTokenFile(file);
    if (theirs === undefined) throw new TokenFileError(`token file ${file} vanished while it was created`);
    return { token: theirs, created: false, from: 'file' };
  } finally {
    unlinkSync(temp);
  }
  return { token, created: true, from: 'file' };
}

/** Reads the token file; undefined when there is none. */
function readTokenFile(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TokenFileError(`cannot read token file ${file}`, { cause: error });
  }
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new TokenFileError(`token file ${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it`);
  }
  const parsed = Token.safeParse(text.trim());
  if (!parsed.success)
    throw new TokenFileError(`token file ${file} does not hold a token: delete it to make a new one`);
  return parsed.data;
}

/**
 * True when `given` equals `expected`, in time that depends on neither: both are hashed to 32 bytes
 * first, so even their lengths do not leak through `timingSafeEqual`.
 */
export function tokensEqual(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
