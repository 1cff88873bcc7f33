/**
 * A service bench: the engine bench (a real repository, state directory and SQLite store, the
 * simulator) with an Admission over a fake host and a Registry, as `harmflow serve` builds them.
 * `reopen()` makes a second Registry on the same state directory, as a restarted service would.
 */
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import { Admission } from '../../src/service/admission.js';
import { Registry } from '../../src/service/registry.js';
import { type Bench, FORGE_BIN, GIT_IDENTITY, makeBench } from '../execution/fixture.js';
import { FakeHost } from './fake-host.js';

export interface ServiceBench extends Bench {
  readonly host: FakeHost;
  readonly admission: Admission;
  registry: Registry;
  /** Stops the registry (suspending its executions) and makes a new one, as after a restart. */
  reopen(): Promise<Registry>;
  events(id: string): EventRecord[];
}

export function makeServiceBench(
  options: { maxRunning?: number; closeBudgetMs?: number; hostEnv?: NodeJS.ProcessEnv } = {},
): ServiceBench {
  const bench = makeBench();
  const host = new FakeHost();
  const admission = new Admission({
    host,
    path: bench.home.root,
    ...(options.maxRunning !== undefined && { maxRunning: options.maxRunning }),
  });
  const registry = () =>
    new Registry({
      home: bench.home,
      store: bench.store,
      admission,
      engine: {
        extraPath: [FORGE_BIN],
        hostEnv: options.hostEnv ?? { ...process.env, ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: bench.forgeDir },
        interruptBudgetMs: 1_000,
      },
      ...(options.closeBudgetMs !== undefined && { closeBudgetMs: options.closeBudgetMs }),
    });
  const service: ServiceBench = {
    ...bench,
    host,
    admission,
    registry: registry(),
    async reopen() {
      await service.registry.stop();
      service.registry = registry();
      return service.registry;
    },
    events: (id) => readEvents(bench.home.eventsFile(id)),
    async cleanup() {
      await service.registry.stop();
      admission.close();
      await bench.cleanup();
    },
  };
  return service;
}

/** Polls `check` every 20 ms until it holds (bounded by the test's timeout). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
