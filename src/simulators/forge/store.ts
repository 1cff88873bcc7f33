import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { writeJsonAtomic } from '../../core/json-file.js';

/** A failure `gh` reports as one stderr line (or a few) and an exit code (gh uses 1 for errors). */
export class ForgeError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'ForgeError';
    this.exitCode = exitCode;
  }
}

export const PullRequest = z.object({
  number: z.int().min(1),
  url: z.string(),
  title: z.string(),
  body: z.string(),
  head: z.string(),
  base: z.string(),
  state: z.enum(['open', 'closed', 'merged']),
  /** The repository's name (its directory's), as in the url. Numbers count per repository. */
  repo: z.string(),
  createdAt: z.string(),
});
export type PullRequest = z.infer<typeof PullRequest>;

const Pulls = z.array(PullRequest);

/** 5 s: a `gh` call holds the lock for a few ms; waiting longer means something is wrong. */
const LOCK_WAIT_MS = 5_000;
/** 10 s: a lock older than that was left by a killed process and is taken over. */
const LOCK_STALE_MS = 10_000;
const LOCK_RETRY_MS = 10;

const pullsFile = (dir: string): string => join(dir, 'pulls.json');

/** Every pull request in the store, oldest first; an absent file is an empty store. */
export async function readPulls(dir: string): Promise<PullRequest[]> {
  let text: string;
  try {
    text = await readFile(pullsFile(dir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ForgeError(`the forge store ${pullsFile(dir)} is not valid JSON`);
  }
  const parsed = Pulls.safeParse(json);
  if (!parsed.success) throw new ForgeError(`the forge store ${pullsFile(dir)} is not a list of pull requests`);
  return parsed.data;
}

async function lock(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, 'pulls.json.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.close();
      return () => unlink(path).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = await stat(path).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > LOCK_STALE_MS) await unlink(path).catch(() => undefined);
    else if (Date.now() > deadline) throw new ForgeError(`the forge store is locked (${path})`);
    else await sleep(LOCK_RETRY_MS);
  }
}

/**
 * Reads the list, lets `change` return the new list and a result, writes the list atomically, and
 * returns the result. Serialized across processes by a lock file beside the store.
 */
export async function updatePulls<T>(
  dir: string,
  change: (pulls: PullRequest[]) => { pulls: PullRequest[]; result: T },
): Promise<T> {
  await mkdir(dir, { recursive: true });
  const release = await lock(dir);
  try {
    const { pulls, result } = change(await readPulls(dir));
    writeJsonAtomic(pullsFile(dir), pulls);
    return result;
  } finally {
    await release();
  }
}
