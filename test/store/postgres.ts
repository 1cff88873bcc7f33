/**
 * The PostgreSQL the store tests run against: HARMFLOW_TEST_POSTGRES_URL, default the local server's
 * `test` database as `postgres` (trust auth). Whether it answers is decided once, when this module
 * loads (one connect of at most 2 s). When it does not, the tests are skipped with one line saying how
 * to enable them; with HARMFLOW_REQUIRE_POSTGRES=1 (CI) that is a failure, never a skip. Each test's
 * stores live in schemas of their own (testSchemas), dropped after it.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const TEST_POSTGRES_URL = process.env.HARMFLOW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REQUIRED = process.env.HARMFLOW_REQUIRE_POSTGRES === '1';

/** Why the server does not answer, or undefined when it does. */
async function unreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'HARMFLOW_TEST_POSTGRES_URL';
  }
}

const problem = await unreachable();
if (problem !== undefined) {
  const how = 'start PostgreSQL on 127.0.0.1:5432 or set HARMFLOW_TEST_POSTGRES_URL';
  if (REQUIRED)
    throw new Error(`HARMFLOW_REQUIRE_POSTGRES=1 but ${shown(TEST_POSTGRES_URL)} does not answer (${problem}): ${how}`);
  process.stdout.write(`PostgreSQL store tests skipped (${shown(TEST_POSTGRES_URL)}: ${problem}): ${how}\n`);
}

/** True when the test server answered. */
export const POSTGRES_AVAILABLE = problem === undefined;

let schemas = 0;

/** A schema name no other store uses: this process's and a counter's. */
export function uniqueSchemaName(): string {
  return `harmflow_test_${process.pid}_${Date.now().toString(36)}_${++schemas}`;
}

/** What testSchemas gives a describe block's tests. */
export interface TestSchemas {
  /** A pool for the tests' own queries (schemas, catalogs, raw rows); each store has its own. */
  readonly admin: pg.Pool;
  /** A schema no store has used yet, dropped after the test. */
  newSchema(): string;
}

/**
 * Registers, in the calling describe block, the hooks that open the admin pool before its tests and
 * end it after them, and drop after each test the schemas it named: after the hooks of the suites
 * inside the block (a conformance suite's), which close the stores using them.
 */
export function testSchemas(): TestSchemas {
  let admin: pg.Pool | undefined;
  const schemas: string[] = [];
  beforeAll(() => {
    admin = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 2 });
  });
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  afterAll(async () => {
    await admin?.end();
  });
  return {
    get admin() {
      if (admin === undefined) throw new Error('the admin pool opens before the tests');
      return admin;
    },
    newSchema() {
      const schema = uniqueSchemaName();
      schemas.push(schema);
      return schema;
    },
  };
}

/** `url` with `application_name` set to `name`, so the tests can find (and end) its sessions. */
export function urlNamed(url: string, name: string): string {
  const named = new URL(url);
  named.searchParams.set('application_name', name);
  return named.toString();
}

/** How many sessions named `name` the server has. */
export async function sessionsNamed(admin: pg.Pool, name: string): Promise<number> {
  const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
    name,
  ]);
  return rows[0].n;
}

/** Ends every session named `name`, as the death of the process that opened them would. */
export async function endSessionsNamed(admin: pg.Pool, name: string): Promise<void> {
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
}
