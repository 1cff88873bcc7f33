/**
 * Cluster nodes as users start them, for the end-to-end tests: the built bin (`npx tsc -p
 * tsconfig.build.json` first) run as `harmflow serve --store … --queue …` (API nodes) and `harmflow
 * worker …`, over the test PostgreSQL (a schema of the test's own) and Redis (a key prefix of its own),
 * each node with a state directory of its own. Every process started is stopped (SIGTERM, then
 * waited for) and every directory removed after each test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { FORGE_BIN, GIT_IDENTITY } from '../execution/fixture.js';
import { TEST_POSTGRES_URL, testSchemas } from '../store/postgres.js';
import { TEST_REDIS_URL, testPrefixes } from './redis.js';

export const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
export const TOKEN = 'test-token-0123456789';
export const AUTH = { authorization: `Bearer ${TOKEN}` };

/** A started process of the bin: what it printed so far, and its first start line's capture. */
export interface NodeProcess {
  readonly child: ChildProcess;
  readonly printed: { out: string; err: string };
  /** Resolves to the first capture of the start pattern in its stdout; rejects if it exits first. */
  readonly ready: Promise<string>;
  /** Resolves with its exit code (null after a signal) once it has exited. */
  readonly exited: Promise<number | null>;
}

/** A cluster's shared places and how to start its nodes. */
export interface TestCluster {
  readonly schema: string;
  readonly prefix: string;
  /** `--store … --queue … --schema … --queue-prefix …`, as every node of the cluster takes them. */
  readonly shared: readonly string[];
  /** A new directory, removed after the test. */
  dir(): string;
  /** An API node on a free port; `ready` resolves to its URL. */
  apiNode(): NodeProcess;
  /**
   * A worker named `id`, the forge's bin on its PATH and `env` added (the simulator's scenario folder,
   * `HARMFLOW_FORGE_DIR`); `ready` resolves once it takes executions.
   */
  worker(id: string, env?: Record<string, string>): NodeProcess & { readonly home: string };
  /** Runs the bin with the cluster's environment (for verbs other than serve and worker). */
  start(args: readonly string[], started: RegExp, env?: Record<string, string>): NodeProcess;
}

/** Declares the hooks; call at the top of a `describe`. */
export function testClusters(): { newCluster(): TestCluster } {
  const schemas = testSchemas();
  const prefixes = testPrefixes();
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function start(args: readonly string[], started: RegExp, env: Record<string, string> = {}): NodeProcess {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HARMFLOW_TOKEN: TOKEN, ...GIT_IDENTITY, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const printed = { out: '', err: '' };
    child.stderr?.on('data', (chunk: Buffer) => {
      printed.err += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const ready = new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        printed.out += String(chunk);
        const found = started.exec(printed.out)?.[1];
        if (found) resolve(found);
      });
      void exited.then(() => reject(new Error(`${args[0]} did not start: ${printed.out}${printed.err}`)));
    });
    return { child, printed, ready, exited };
  }

  return {
    newCluster() {
      const schema = schemas.newSchema();
      const prefix = prefixes.newPrefix();
      const shared = [
        '--store',
        TEST_POSTGRES_URL,
        '--queue',
        TEST_REDIS_URL,
        '--schema',
        schema,
        '--queue-prefix',
        prefix,
      ];
      const dir = () => {
        const made = mkdtempSync(join(tmpdir(), 'harmflow-cluster-'));
        dirs.push(made);
        return made;
      };
      return {
        schema,
        prefix,
        shared,
        dir,
        start,
        apiNode: () =>
          start(
            ['serve', '--port', '0', '--home', dir(), ...shared],
            /^HarmFlow API node \(cluster mode\) on (http:\/\/127\.0\.0\.1:\d+)/m,
          ),
        worker: (id, env = {}) => {
          const home = dir();
          const started = new RegExp(`^(worker ${id} taking executions)`, 'm');
          const path = `${FORGE_BIN}${delimiter}${process.env.PATH ?? ''}`;
          return {
            ...start(['worker', '--home', home, '--worker-id', id, ...shared], started, { ...env, PATH: path }),
            home,
          };
        },
      };
    },
  };
}

/** Submits `task` (a task file's fields, its paths absolute) to the API node at `url`; its execution's id. */
export async function submitTask(url: string, task: Record<string, unknown>): Promise<string> {
  const submitted = await fetch(`${url}/api/executions`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ task }),
  });
  if (submitted.status !== 201) throw new Error(`submit answered ${submitted.status}: ${await submitted.text()}`);
  return ((await submitted.json()) as { execution: { id: string } }).execution.id;
}
