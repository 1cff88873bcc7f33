/**
 * `HostMeasures` is the one seam through which the session service reads the machine it runs on:
 * cores, load and free disk. Admission control (admission.ts) is its only reader; tests give it a
 * fake whose values they change. `systemHost` reads the real machine through `node:os` and
 * `node:fs`. Implementations hold no state and may be called concurrently.
 */

import { statfs } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';

export interface HostMeasures {
  /** Logical cores usable by this process (`os.availableParallelism()`). Does not throw. */
  cores(): number;
  /** The one-minute load average (`os.loadavg()[0]`; always 0 on Windows). Does not throw. */
  loadAverage1m(): number;
  /**
   * Free bytes for an unprivileged user on the filesystem holding `path` (`fs.statfs`: bavail ×
   * bsize). Rejects when `path` cannot be measured, e.g. it does not exist.
   */
  freeDiskBytes(path: string): Promise<number>;
}

/** The machine this process runs on. */
export const systemHost: HostMeasures = {
  cores: () => availableParallelism(),
  loadAverage1m: () => loadavg()[0] ?? 0,
  freeDiskBytes: async (path) => {
    const stats = await statfs(path);
    return stats.bavail * stats.bsize;
  },
};
