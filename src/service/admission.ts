/**
 * `Admission` decides when an execution may start and whether the service takes new submits.
 *
 * Cap: at most `cap` executions hold a slot at once. `cap` is the configured `maxRunning`, else the
 * host's idle cores, `max(1, floor(cores − load1m))`. Executions beyond it wait `queued` in
 * `acquire()`, first come first served, and start as slots are released or the cap grows.
 *
 * Hold: admission is held while an operator holds it (`hold(reason)`), while free disk under
 * HARMFLOW_HOME is below the floor, and while free disk cannot be measured (fail safe: a service
 * that cannot see its disk must not fill it; the reason names the error). While held, `refusal()`
 * says why, for the caller to refuse new submits (503), and queued executions stay queued; running
 * executions keep their slots. When the hold ends, queued executions start as the cap allows.
 *
 * Disk use: given `stateDisk`, the status also reports the bytes under HARMFLOW_HOME's worktrees and
 * run directories and of its shared caches (in all and tool by tool), and the low-disk reason names
 * them with the way to reclaim them (`harmflow gc`, `--cache-limit-gib`);
 * `onDiskLow` is called by every measurement that finds free disk below the floor (the service runs
 * its worktree cleanup).
 *
 * Measures come from one `HostMeasures` and are taken again on each `acquire()`, each slot release,
 * each `hold()`/`release()`, each `status()`/`refusal()`, and every `recheckMs` while executions
 * wait. Re-measurements run one at a time, in call order, so a slow measurement never overwrites a
 * newer one and slots are never granted twice. The service owns one instance and calls `close()` on
 * shutdown; `close()` is idempotent.
 */
import { describeError, UsageError } from '../core/errors.js';
import type { StateDisk } from '../execution/execution-disk.js';
import type { HostMeasures } from './host.js';

/**
 * 2 GiB: an execution writes its worktree (a checkout of the repository), its harness's raw
 * stdout/stderr and its history under HARMFLOW_HOME. A medium repository checkout plus builds and
 * test output are hundreds of MiB, so 2 GiB leaves room for the executions already running to
 * finish (and for SQLite's WAL to checkpoint) instead of failing with ENOSPC halfway.
 */
export const DEFAULT_DISK_FLOOR_BYTES = 2 * 1024 ** 3;

/**
 * 5 s: Linux recomputes the load average every 5 seconds (LOAD_FREQ; measured here: os.loadavg()
 * changed at 5.0 s intervals), so re-measuring more often sees the same load. A statfs costs about
 * 80 µs, so the timer costs nothing worth counting. Slot releases re-measure at once; the timer only
 * catches load falling and disk being freed while executions wait.
 */
export const DEFAULT_RECHECK_MS = 5_000;

export interface AdmissionOptions {
  readonly host: HostMeasures;
  /** HARMFLOW_HOME: where free disk is measured. */
  readonly path: string;
  /** A configured cap (a positive integer); it replaces the idle-cores cap. */
  readonly maxRunning?: number;
  /** Admission is held while free disk under `path` is below this. Default DEFAULT_DISK_FLOOR_BYTES. */
  readonly diskFloorBytes?: number;
  /** How often measures are taken again while executions wait. Default DEFAULT_RECHECK_MS. */
  readonly recheckMs?: number;
  /** The bytes HARMFLOW_HOME's worktrees and run directories take (cached by the caller: it is asked often). */
  readonly stateDisk?: () => Promise<StateDisk>;
  /** Called by each measurement that finds free disk below the floor. */
  readonly onDiskLow?: () => void;
}

export interface AdmissionStatus {
  /** How many executions may run at once now. */
  readonly cap: number;
  readonly capFrom: 'idle-cores' | 'configured';
  readonly cores: number;
  readonly load1m: number;
  /** Slots granted and not yet released. May exceed `cap` after the load rose or the cap fell. */
  readonly running: number;
  /** Executions waiting in `acquire()`. */
  readonly queued: number;
  /** True while new submits are refused and queued executions do not start. */
  readonly held: boolean;
  /** Why it is held, one sentence each; empty when not held. */
  readonly reasons: readonly string[];
  /** Free bytes under HARMFLOW_HOME; absent when they could not be measured (see `reasons`). */
  readonly diskFreeBytes?: number;
  readonly diskFloorBytes: number;
  /** Bytes under HARMFLOW_HOME's `worktrees/`; absent without `stateDisk` or when it failed. */
  readonly worktreesBytes?: number;
  /** Bytes under HARMFLOW_HOME's `runs/`; absent likewise. */
  readonly runsBytes?: number;
  /** Bytes of the shared caches under HARMFLOW_HOME's `caches/`; absent likewise. */
  readonly cachesBytes?: number;
  /** The same, tool by tool (`npm`, `go`, …); absent likewise. */
  readonly caches?: StateDisk['caches'];
}

/** A granted place to run. `release()` gives it back; calling it again does nothing. */
export interface Slot {
  release(): void;
}

interface Measures {
  readonly cores: number;
  readonly load1m: number;
  readonly disk: { readonly freeBytes: number } | { readonly error: string };
  /** What the state directory takes: read only when free disk is below the floor. */
  readonly stateDisk?: StateDisk;
}

interface Waiter {
  readonly grant: (slot: Slot) => void;
  readonly reject: (reason: unknown) => void;
  /** Stops listening to the waiter's abort signal. */
  readonly detach: () => void;
}

export class Admission {
  private readonly host: HostMeasures;
  private readonly path: string;
  private readonly maxRunning: number | undefined;
  private readonly diskFloorBytes: number;
  private readonly stateDisk: (() => Promise<StateDisk>) | undefined;
  private readonly onDiskLow: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly waiters: Waiter[] = [];
  private running = 0;
  private operatorHold: string | undefined;
  private closed = false;
  /** The latest re-measurement, started or finished; the next one runs after it. */
  private last: Promise<unknown> = Promise.resolve();
  /** A re-measurement asked for but not started yet: callers meanwhile share it. */
  private pending: Promise<Measures> | undefined;

  constructor(options: AdmissionOptions) {
    const { maxRunning, diskFloorBytes = DEFAULT_DISK_FLOOR_BYTES, recheckMs = DEFAULT_RECHECK_MS } = options;
    if (maxRunning !== undefined && !(Number.isInteger(maxRunning) && maxRunning >= 1)) {
      throw new UsageError(`the maximum of running executions must be a positive integer, not ${maxRunning}`);
    }
    if (!(Number.isFinite(diskFloorBytes) && diskFloorBytes >= 0)) {
      throw new UsageError(`the disk floor must be a number of bytes, not ${diskFloorBytes}`);
    }
    if (!(Number.isFinite(recheckMs) && recheckMs > 0)) {
      throw new UsageError(`the recheck interval must be a positive number of milliseconds, not ${recheckMs}`);
    }
    this.host = options.host;
    this.path = options.path;
    this.maxRunning = maxRunning;
    this.diskFloorBytes = diskFloorBytes;
    this.stateDisk = options.stateDisk;
    this.onDiskLow = options.onDiskLow;
    this.timer = setInterval(() => {
      if (this.waiters.length > 0) void this.recheck();
    }, recheckMs);
    this.timer.unref();
  }

  /** Re-measures, then reports the cap, the counts and whether (and why) admission is held. */
  async status(): Promise<AdmissionStatus> {
    const [measures, used] = await Promise.all([this.measure(), this.readStateDisk()]);
    const reasons = this.reasons(measures);
    return {
      cap: this.cap(measures),
      capFrom: this.maxRunning === undefined ? 'idle-cores' : 'configured',
      cores: measures.cores,
      load1m: measures.load1m,
      running: this.running,
      queued: this.waiters.length,
      held: reasons.length > 0,
      reasons,
      ...('freeBytes' in measures.disk && { diskFreeBytes: measures.disk.freeBytes }),
      diskFloorBytes: this.diskFloorBytes,
      ...(used !== undefined && {
        worktreesBytes: used.worktreesBytes,
        runsBytes: used.runsBytes,
        cachesBytes: used.cachesBytes,
        caches: used.caches,
      }),
    };
  }

  /** Re-measures, then says why a new submit is refused now (the reasons joined), or undefined. */
  async refusal(): Promise<string | undefined> {
    const reasons = this.reasons(await this.measure());
    return reasons.length > 0 ? reasons.join('; ') : undefined;
  }

  /** Holds admission for `reason` (one line for people: "disk maintenance"). A second hold replaces it. */
  hold(reason: string): void {
    const trimmed = reason.trim();
    if (trimmed === '') throw new UsageError('a hold needs a reason');
    this.operatorHold = trimmed;
    void this.recheck();
  }

  /** Ends the operator's hold; queued executions start as the cap and the disk allow. */
  release(): void {
    this.operatorHold = undefined;
    void this.recheck();
  }

  /**
   * Waits for a slot, first come first served, and counts as queued meanwhile. Rejects with the
   * signal's reason if `signal` aborts first (and is no longer queued), and with
   * Error('admission closed') once `close()` is called.
   */
  acquire(signal?: AbortSignal): Promise<Slot> {
    if (this.closed) return Promise.reject(new Error('admission closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Slot>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      void this.recheck();
    });
  }

  /** Re-measures now and starts waiters if they may run. Never rejects. */
  async recheck(): Promise<void> {
    await this.measure();
  }

  /** Stops the timer and rejects pending acquires. Granted slots stay valid until released. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const waiter of this.waiters.splice(0)) {
      waiter.detach();
      waiter.reject(new Error('admission closed'));
    }
  }

  /** Runs one re-measurement after those already started; calls made before it starts share it. */
  private measure(): Promise<Measures> {
    if (this.pending === undefined) {
      const run = async (): Promise<Measures> => {
        this.pending = undefined;
        const measures = await this.read();
        this.grant(measures);
        return measures;
      };
      this.pending = this.last.then(run, run);
      this.last = this.pending;
    }
    return this.pending;
  }

  private async read(): Promise<Measures> {
    const cores = this.host.cores();
    const load1m = this.host.loadAverage1m();
    let freeBytes: number;
    try {
      freeBytes = await this.host.freeDiskBytes(this.path);
    } catch (error) {
      return { cores, load1m, disk: { error: describeError(error) } };
    }
    if (freeBytes >= this.diskFloorBytes) return { cores, load1m, disk: { freeBytes } };
    this.onDiskLow?.();
    const stateDisk = await this.readStateDisk();
    return { cores, load1m, disk: { freeBytes }, ...(stateDisk !== undefined && { stateDisk }) };
  }

  /** What the state directory takes, or undefined (no `stateDisk`, or it failed: then it is left unsaid). */
  private async readStateDisk(): Promise<StateDisk | undefined> {
    try {
      return await this.stateDisk?.();
    } catch {
      return undefined;
    }
  }

  /** Starts waiters in order while admission is not held and a slot is free. */
  private grant(measures: Measures): void {
    if (this.closed || this.reasons(measures).length > 0) return;
    const cap = this.cap(measures);
    while (this.running < cap) {
      const waiter = this.waiters.shift();
      if (waiter === undefined) return;
      waiter.detach();
      this.running++;
      waiter.grant(this.slot());
    }
  }

  private slot(): Slot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        void this.recheck();
      },
    };
  }

  private cap(measures: Measures): number {
    return this.maxRunning ?? Math.max(1, Math.floor(measures.cores - measures.load1m));
  }

  private reasons(measures: Measures): string[] {
    const reasons: string[] = [];
    if (this.operatorHold !== undefined) reasons.push(`held by an operator: ${this.operatorHold}`);
    const { disk } = measures;
    if ('error' in disk) {
      reasons.push(`free disk under HARMFLOW_HOME could not be measured: ${disk.error}`);
    } else if (disk.freeBytes < this.diskFloorBytes) {
      const used = measures.stateDisk;
      const reclaim =
        used === undefined
          ? ''
          : ` (worktrees use ${formatBytes(used.worktreesBytes)}, run directories ${formatBytes(used.runsBytes)}, shared caches ${formatBytes(used.cachesBytes)}: \`harmflow gc\` removes expired clean worktrees and trims the caches to \`--cache-limit-gib\`)`;
      reasons.push(
        `free disk ${formatBytes(disk.freeBytes)} under HARMFLOW_HOME is below the ${formatBytes(this.diskFloorBytes)} floor${reclaim}`,
      );
    }
    return reasons;
  }
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** "1.2 GiB": rounded down to one decimal, so a value below a floor never prints equal to it. */
function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Math.floor(value * 10) / 10} ${UNITS[unit]}`;
}
