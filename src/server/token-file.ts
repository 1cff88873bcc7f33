/**
 * Where the API token lives in a state directory: `<HARMFLOW_HOME>/token` (token.ts makes and reads
 * it). Its own module so clients find the file without loading what makes tokens (node:crypto).
 */
import { join } from 'node:path';
import type { HomePaths } from '../core/home.js';

/** The path of the token file in `home`. */
export function tokenFile(home: HomePaths): string {
  return join(home.root, 'token');
}
