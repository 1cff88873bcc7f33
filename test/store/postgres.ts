/**
 * The PostgreSQL the store tests run against: HARMFLOW_TEST_POSTGRES_URL, default the local server's
 * `test` database as `postgres` (trust auth). Whether it answers is decided once, when this module
 * loads (one connect of at most 2 s). When it does not, the tests are skipped with one line saying how
 * to enable them; with HARMFLOW_REQUIRE_POSTGRES=1 (CI) that is a failure, never a skip.
 */
import pg from 'pg';

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
