/** A fake HostMeasures for admission tests: the test sets cores, load and free disk. */
import type { HostMeasures } from '../../src/service/host.js';

export const GiB = 1024 ** 3;

/** A host whose measures the test sets. It counts disk measurements running at once. */
export class FakeHost implements HostMeasures {
  coreCount = 8;
  load = 0;
  free = 100 * GiB;
  diskError: Error | undefined;
  /** While set, each disk measurement waits for it. */
  diskGate: Promise<void> | undefined;
  readonly measuredPaths: string[] = [];
  inFlight = 0;
  maxInFlight = 0;

  cores(): number {
    return this.coreCount;
  }

  loadAverage1m(): number {
    return this.load;
  }

  async freeDiskBytes(path: string): Promise<number> {
    this.measuredPaths.push(path);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.diskGate !== undefined) await this.diskGate;
      if (this.diskError !== undefined) throw this.diskError;
      return this.free;
    } finally {
      this.inFlight--;
    }
  }
}
