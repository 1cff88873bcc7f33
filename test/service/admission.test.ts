import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { Admission, type AdmissionOptions, DEFAULT_DISK_FLOOR_BYTES, type Slot } from '../../src/service/admission.js';
import { type HostMeasures, systemHost } from '../../src/service/host.js';
import { FakeHost, GiB } from './fake-host.js';

const HOME = '/harmflow-home';

/** Follows a promise's outcome without awaiting it. */
interface Tracked<T> {
  state: 'pending' | 'fulfilled' | 'rejected';
  value?: T;
  error?: unknown;
}

function track<T>(promise: Promise<T>): Tracked<T> {
  const tracked: Tracked<T> = { state: 'pending' };
  promise.then(
    (value) => {
      tracked.state = 'fulfilled';
      tracked.value = value;
    },
    (error: unknown) => {
      tracked.state = 'rejected';
      tracked.error = error;
    },
  );
  return tracked;
}

/** Lets settled promises' callbacks run: every callback queued before the next macrotask. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const opened: Admission[] = [];

function admission(host: HostMeasures, options: Partial<AdmissionOptions> = {}): Admission {
  const created = new Admission({ host, path: HOME, ...options });
  opened.push(created);
  return created;
}

/** Re-measures, then lets the granted acquires' callbacks run. */
async function recheck(subject: Admission): Promise<void> {
  await subject.recheck();
  await settle();
}

function slotOf(tracked: Tracked<Slot>): Slot {
  if (tracked.value === undefined) throw new Error(`no slot: the acquire is ${tracked.state}`);
  return tracked.value;
}

afterEach(() => {
  for (const subject of opened.splice(0)) subject.close();
});

describe('Admission cap', () => {
  it('follows idle cores: cores minus the one-minute load, floored at one', async () => {
    const host = new FakeHost();
    host.load = 5.2;
    const subject = admission(host);
    expect(await subject.status()).toMatchObject({ cap: 2, capFrom: 'idle-cores', cores: 8, load1m: 5.2 });

    const acquires = [track(subject.acquire()), track(subject.acquire()), track(subject.acquire())];
    await recheck(subject);
    expect(acquires.map((a) => a.state)).toEqual(['fulfilled', 'fulfilled', 'pending']);
    expect(await subject.status()).toMatchObject({ running: 2, queued: 1 });

    host.load = 9;
    expect(await subject.status()).toMatchObject({ cap: 1, running: 2, queued: 1 });
    slotOf(acquires[0] as Tracked<Slot>).release();
    await recheck(subject);
    expect(acquires[2]?.state).toBe('pending'); // one still runs, and the cap is now 1

    host.load = 0.5;
    await recheck(subject);
    expect(acquires[2]?.state).toBe('fulfilled');
    expect(await subject.status()).toMatchObject({ cap: 7, running: 2, queued: 0 });
  });

  it('lets a configured maximum replace the idle-cores cap', async () => {
    const host = new FakeHost();
    host.load = 7.9;
    const subject = admission(host, { maxRunning: 3 });
    const acquires = Array.from({ length: 4 }, () => track(subject.acquire()));
    await recheck(subject);
    expect(acquires.filter((a) => a.state === 'fulfilled')).toHaveLength(3);
    expect(await subject.status()).toMatchObject({ cap: 3, capFrom: 'configured', running: 3, queued: 1 });
  });

  it('starts waiters first come first served, one per released slot', async () => {
    const subject = admission(new FakeHost(), { maxRunning: 1 });
    const first = track(subject.acquire());
    const second = track(subject.acquire());
    const third = track(subject.acquire());
    await recheck(subject);
    expect([first.state, second.state, third.state]).toEqual(['fulfilled', 'pending', 'pending']);

    const slot = slotOf(first);
    slot.release();
    slot.release(); // idempotent: the second call frees nothing more
    await recheck(subject);
    expect([second.state, third.state]).toEqual(['fulfilled', 'pending']);
    expect(await subject.status()).toMatchObject({ running: 1, queued: 1 });

    slotOf(second).release();
    await recheck(subject);
    expect(third.state).toBe('fulfilled');
    expect(await subject.status()).toMatchObject({ running: 1, queued: 0 });
  });

  it('starts a waiter on its own when a slot is released', async () => {
    const subject = admission(new FakeHost(), { maxRunning: 1 });
    const first = await subject.acquire();
    const second = subject.acquire();
    first.release(); // no recheck() by the test: the release re-measures and starts the waiter
    const slot = await second;
    expect(await subject.status()).toMatchObject({ running: 1, queued: 0 });
    slot.release();
  });

  it('re-measures on its timer while executions wait', async () => {
    const host = new FakeHost();
    host.coreCount = 2;
    host.load = 3;
    const subject = admission(host, { recheckMs: 1 });
    await subject.acquire();
    const waiting = subject.acquire();
    const tracked = track(waiting);
    await recheck(subject);
    expect(tracked.state).toBe('pending');
    host.load = 0; // no recheck() by the test: only the timer sees the load fall
    await waiting;
    expect(await subject.status()).toMatchObject({ cap: 2, running: 2, queued: 0 });
  });

  it('refuses a cap that is not a positive integer', () => {
    const host = new FakeHost();
    expect(() => new Admission({ host, path: HOME, maxRunning: 0 })).toThrow(UsageError);
    expect(() => new Admission({ host, path: HOME, maxRunning: 1.5 })).toThrow(UsageError);
  });
});

describe('Admission disk floor', () => {
  it('holds while free disk is below the floor, and resumes queued executions once it is not', async () => {
    const host = new FakeHost();
    host.free = 1.25 * GiB;
    const subject = admission(host);
    const reason = 'free disk 1.2 GiB under HARMFLOW_HOME is below the 2 GiB floor';
    expect(await subject.refusal()).toBe(reason);
    expect(await subject.status()).toMatchObject({
      held: true,
      reasons: [reason],
      diskFreeBytes: 1.25 * GiB,
      diskFloorBytes: DEFAULT_DISK_FLOOR_BYTES,
    });
    expect(host.measuredPaths).toContain(HOME);

    const waiting = track(subject.acquire());
    await recheck(subject);
    expect(waiting.state).toBe('pending');
    expect(await subject.status()).toMatchObject({ running: 0, queued: 1 });

    host.free = 10 * GiB;
    await recheck(subject);
    expect(waiting.state).toBe('fulfilled');
    expect(await subject.refusal()).toBeUndefined();
    expect(await subject.status()).toMatchObject({ held: false, reasons: [], running: 1, queued: 0 });
  });

  it('names what worktrees, run directories and the shared caches use, and calls onDiskLow, while free disk is low', async () => {
    const host = new FakeHost();
    let lows = 0;
    const caches = { npm: 1.5 * GiB, pnpm: 0, yarn: 0, pip: 0, go: 0.5 * GiB, cargo: 0, bazel: 0 };
    const subject = admission(host, {
      stateDisk: async () => ({ worktreesBytes: 3.1 * GiB, runsBytes: 0.4 * GiB, cachesBytes: 2 * GiB, caches }),
      onDiskLow: () => {
        lows += 1;
      },
    });
    expect(await subject.status()).toMatchObject({
      held: false,
      worktreesBytes: 3.1 * GiB,
      runsBytes: 0.4 * GiB,
      cachesBytes: 2 * GiB,
      caches,
    });
    expect(lows).toBe(0);

    host.free = 1.25 * GiB;
    expect(await subject.refusal()).toBe(
      'free disk 1.2 GiB under HARMFLOW_HOME is below the 2 GiB floor (worktrees use 3.1 GiB, run directories 409.6 MiB, shared caches 2 GiB: `harmflow gc` removes expired clean worktrees and trims the caches to `--cache-limit-gib`)',
    );
    expect(lows).toBe(1);
  });

  it('leaves the disk use unsaid when it cannot be measured', async () => {
    const host = new FakeHost();
    host.free = 1.25 * GiB;
    const subject = admission(host, { stateDisk: () => Promise.reject(new Error('EACCES')) });
    const status = await subject.status();
    expect(status.reasons).toEqual(['free disk 1.2 GiB under HARMFLOW_HOME is below the 2 GiB floor']);
    expect(status).not.toHaveProperty('worktreesBytes');
  });

  it('takes a configured floor', async () => {
    const host = new FakeHost();
    host.free = 600 * 1024 ** 2;
    const subject = admission(host, { diskFloorBytes: 512 * 1024 ** 2 });
    expect(await subject.refusal()).toBeUndefined();
    host.free = 300 * 1024 ** 2;
    expect(await subject.refusal()).toBe('free disk 300 MiB under HARMFLOW_HOME is below the 512 MiB floor');
  });

  it('holds, naming the error, while free disk cannot be measured', async () => {
    const host = new FakeHost();
    host.diskError = new Error('EIO: i/o error, statfs');
    const subject = admission(host);
    const status = await subject.status();
    expect(status.held).toBe(true);
    expect(status.reasons).toEqual(['free disk under HARMFLOW_HOME could not be measured: EIO: i/o error, statfs']);
    expect(status).not.toHaveProperty('diskFreeBytes');
    const waiting = track(subject.acquire());
    await recheck(subject);
    expect(waiting.state).toBe('pending');

    host.diskError = undefined;
    await recheck(subject);
    expect(waiting.state).toBe('fulfilled');
  });
});

describe('Admission operator hold', () => {
  it('refuses with the reason, and release resumes queued executions', async () => {
    const subject = admission(new FakeHost(), { maxRunning: 2 });
    subject.hold('disk maintenance');
    expect(await subject.refusal()).toBe('held by an operator: disk maintenance');
    subject.hold('upgrading the harness CLIs');
    expect(await subject.status()).toMatchObject({
      held: true,
      reasons: ['held by an operator: upgrading the harness CLIs'],
    });

    const acquires = [track(subject.acquire()), track(subject.acquire()), track(subject.acquire())];
    await recheck(subject);
    expect(acquires.map((a) => a.state)).toEqual(['pending', 'pending', 'pending']);
    expect(await subject.status()).toMatchObject({ running: 0, queued: 3 });

    subject.release();
    await recheck(subject);
    expect(acquires.map((a) => a.state)).toEqual(['fulfilled', 'fulfilled', 'pending']);
    expect(await subject.refusal()).toBeUndefined();
  });

  it('lists the operator hold and a low disk together', async () => {
    const host = new FakeHost();
    host.free = GiB;
    const subject = admission(host);
    subject.hold('disk maintenance');
    expect(await subject.refusal()).toBe(
      'held by an operator: disk maintenance; free disk 1 GiB under HARMFLOW_HOME is below the 2 GiB floor',
    );
  });

  it('leaves running executions their slots', async () => {
    const subject = admission(new FakeHost(), { maxRunning: 1 });
    const running = await subject.acquire();
    const waiting = track(subject.acquire());
    subject.hold('disk maintenance');
    expect(await subject.status()).toMatchObject({ held: true, running: 1, queued: 1 });

    running.release(); // the running execution ends normally while held
    await recheck(subject);
    expect(waiting.state).toBe('pending'); // its slot does not go to a queued execution while held
    expect(await subject.status()).toMatchObject({ running: 0, queued: 1 });
  });

  it('refuses a hold without a reason', () => {
    const subject = admission(new FakeHost());
    expect(() => subject.hold('  ')).toThrow(UsageError);
  });
});

describe('Admission acquire and close', () => {
  it('rejects with the reason of a signal already aborted, and does not queue', async () => {
    const subject = admission(new FakeHost());
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    await expect(subject.acquire(controller.signal)).rejects.toThrow('client went away');
    expect(await subject.status()).toMatchObject({ running: 0, queued: 0 });
  });

  it('rejects a waiter whose signal aborts, and gives the next slot to the one after it', async () => {
    const subject = admission(new FakeHost(), { maxRunning: 1 });
    const running = await subject.acquire();
    const controller = new AbortController();
    const canceled = track(subject.acquire(controller.signal));
    const next = track(subject.acquire());
    await recheck(subject);
    expect(await subject.status()).toMatchObject({ queued: 2 });

    controller.abort(new Error('execution canceled'));
    await settle();
    expect(canceled.state).toBe('rejected');
    expect((canceled.error as Error).message).toBe('execution canceled');
    expect(await subject.status()).toMatchObject({ running: 1, queued: 1 });

    running.release();
    await recheck(subject);
    expect(next.state).toBe('fulfilled');
    expect(await subject.status()).toMatchObject({ running: 1, queued: 0 });
  });

  it('keeps a slot granted before the signal aborts', async () => {
    const subject = admission(new FakeHost(), { maxRunning: 1 });
    const controller = new AbortController();
    const slot = await subject.acquire(controller.signal);
    controller.abort(new Error('too late'));
    expect(await subject.status()).toMatchObject({ running: 1, queued: 0 });
    slot.release();
    expect(await subject.status()).toMatchObject({ running: 0 });
  });

  it('rejects pending acquires on close, and later ones too', async () => {
    const subject = admission(new FakeHost(), { maxRunning: 1 });
    const running = await subject.acquire();
    const waiting = subject.acquire();
    subject.close();
    await expect(waiting).rejects.toThrow('admission closed');
    await expect(subject.acquire()).rejects.toThrow('admission closed');
    subject.close(); // idempotent
    running.release();
    expect(await subject.status()).toMatchObject({ running: 0, queued: 0 });
  });

  it('runs re-measurements one at a time and grants each slot once', async () => {
    const host = new FakeHost();
    let open = () => {};
    host.diskGate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const subject = admission(host, { maxRunning: 2 });
    const acquires = Array.from({ length: 5 }, () => track(subject.acquire()));
    const rechecks = Promise.all([subject.recheck(), subject.recheck(), subject.status(), subject.refusal()]);
    await settle();
    expect(host.inFlight).toBe(1); // the others wait for the first measurement to finish
    open();
    await rechecks;
    await recheck(subject);
    expect(host.maxInFlight).toBe(1);
    expect(acquires.filter((a) => a.state === 'fulfilled')).toHaveLength(2);
    expect(await subject.status()).toMatchObject({ running: 2, queued: 3 });
  });
});

describe('Admission on the system host', () => {
  it('measures the cores, the load and the free disk of a real directory', async () => {
    const home = await mkdtemp(join(tmpdir(), 'harmflow-admission-'));
    try {
      const subject = admission(systemHost, { path: home, diskFloorBytes: 0 });
      const status = await subject.status();
      expect(status.cores).toBeGreaterThanOrEqual(1);
      expect(status.load1m).toBeGreaterThanOrEqual(0);
      expect(status.diskFreeBytes).toBeGreaterThan(0);
      expect(status.held).toBe(false);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('holds when HARMFLOW_HOME does not exist', async () => {
    const home = await mkdtemp(join(tmpdir(), 'harmflow-admission-'));
    await rm(home, { recursive: true, force: true });
    const subject = admission(systemHost, { path: home });
    const refusal = await subject.refusal();
    expect(refusal).toMatch(/^free disk under HARMFLOW_HOME could not be measured: ENOENT/);
  });
});
