/**
 * A git object name as HarmFlow's records hold it. Its own module, so what only reads records (the
 * record verbs' bundle, src/cli/bundled-verbs.ts) does not load git's process plumbing.
 */
import { z } from 'zod';

/** A full object name: SHA-1 (40 hex digits) or SHA-256 (64). */
export const GitSha = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);
