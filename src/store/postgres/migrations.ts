/**
 * The PostgreSQL schema of the Store, the ResumeStore and the EffectLedger, as one ordered list of
 * migrations, as SQLite keeps all three in one file at one version, and of the event mirror
 * (src/events/mirror/), the execution leases (src/cluster/lease.ts), the execution inboxes
 * (src/cluster/inbox.ts) and the execution contexts (src/cluster/contexts.ts), which have no SQLite
 * counterpart. Their tables live in one PostgreSQL schema (`public` unless told); its table
 * `harmflow_migrations` has one row per migration applied. Opening any of them applies the missing
 * ones in one transaction. Never edit a migration that has shipped: append a new one.
 */
import type pg from 'pg';
import { z } from 'zod';
import { EXIT, HarmflowError } from '../../core/errors.js';
import { inTransaction } from './pool.js';

/**
 * Each entry brings the schema from version i to i + 1. The tables are SQLite's (../sqlite/migrations.ts)
 * in PostgreSQL's types:
 * - times are `timestamptz`: PostgreSQL refuses what is not a time, orders them as times, and compares
 *   them with `now()`; they come back formatted by `toISOString()` (pool.ts), the Store's format, so a
 *   stored time reads back exactly (microseconds, which JS times never have, would be cut);
 * - a task's definition is `jsonb`, an object: it reads back equal, but not in its key order (jsonb
 *   keeps keys sorted; nothing reads the order);
 * - `exit_code` and `signal` are jsonb, as SQLite's JSON text: SQL NULL "not recorded", JSON `null`
 *   "none";
 * - keys that are ordered or prefix-matched (`id`, `harness`, `account`) collate as "C", byte order as
 *   SQLite's, whatever the database's collation;
 * - reals are `double precision` (SQLite's REAL), token counts `bigint` (SQLite's 64-bit INTEGER).
 * Text cannot hold a NUL character in PostgreSQL: a record with one is refused.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tasks (
    id text COLLATE "C" PRIMARY KEY,
    name text NOT NULL,
    definition jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
    created_at timestamptz NOT NULL
  );

  CREATE TABLE executions (
    id text COLLATE "C" PRIMARY KEY,
    task_id text COLLATE "C" NOT NULL REFERENCES tasks (id),
    task_name text NOT NULL,
    repo text NOT NULL,
    base_ref text NOT NULL,
    base_sha text NOT NULL,
    branch text NOT NULL,
    worktree text NOT NULL,
    run_dir text NOT NULL,
    state text NOT NULL,
    created_at timestamptz NOT NULL,
    started_at timestamptz,
    ended_at timestamptz,
    deadline timestamptz NOT NULL,
    attempt_count integer NOT NULL,
    current_harness text,
    message text
  );
  CREATE INDEX executions_by_created ON executions (created_at, id);
  CREATE INDEX executions_by_task ON executions (task_id);

  CREATE TABLE attempts (
    execution text COLLATE "C" NOT NULL REFERENCES executions (id),
    number integer NOT NULL CHECK (number >= 1),
    harness text NOT NULL,
    model text,
    simulated boolean NOT NULL,
    session_id text,
    started_at timestamptz NOT NULL,
    ended_at timestamptz,
    outcome text,
    exit_code jsonb CHECK (jsonb_typeof(exit_code) IN ('number', 'null')),
    signal jsonb CHECK (jsonb_typeof(signal) IN ('string', 'null')),
    message text,
    resets_at timestamptz,
    input_tokens bigint,
    output_tokens bigint,
    cost_usd double precision,
    PRIMARY KEY (execution, number)
  );

  CREATE TABLE quotas (
    harness text COLLATE "C" NOT NULL,
    account text COLLATE "C" NOT NULL,
    state text NOT NULL CHECK (state IN ('ok', 'warning', 'exhausted')),
    resets_at timestamptz,
    utilization double precision CHECK (utilization BETWEEN 0 AND 1),
    source text NOT NULL,
    message text,
    execution text,
    attempt integer CHECK (attempt >= 1),
    observed_at timestamptz NOT NULL,
    PRIMARY KEY (harness, account)
  );
  `,
  // The workflow engine's ResumeStore (../resume-store.ts): SQLite's tables at their latest version
  // (its migrations 2, 4 to 8). Fingerprints, digests and `replaced` are `bytea` of 32 bytes
  // (../resume-rows.ts converts). Outputs and their components are `text`, not jsonb: they keep the
  // exact canonical text the engine hashed, any JSON (jsonb refuses a `\u0000` in a string), and are
  // never parsed by the server. A run's params are jsonb, an object, as a task's definition. Steps and
  // items collate as "C": run items are listed in code point order. `step_outputs_by_item` finds a
  // step's outputs for latestOutputs; a done item's fingerprint has no foreign key to `step_outputs`
  // (a failed item has no output, and pruning old outputs must stay possible).
  `
  CREATE TABLE workflow_runs (
    id text COLLATE "C" PRIMARY KEY,
    workflow text NOT NULL,
    params jsonb NOT NULL CHECK (jsonb_typeof(params) = 'object'),
    state text NOT NULL CHECK (state IN ('running', 'crashed', 'waiting', 'succeeded', 'failed')),
    message text,
    module text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  );
  CREATE INDEX workflow_runs_by_created ON workflow_runs (created_at, id);
  CREATE INDEX workflow_runs_by_workflow ON workflow_runs (workflow, created_at, id);

  CREATE TABLE step_outputs (
    fingerprint bytea PRIMARY KEY CHECK (octet_length(fingerprint) = 32),
    workflow text NOT NULL,
    step text NOT NULL,
    item text NOT NULL,
    digest bytea NOT NULL CHECK (octet_length(digest) = 32),
    output text NOT NULL,
    components text NOT NULL,
    duration_ms double precision NOT NULL CHECK (duration_ms >= 0),
    input_tokens bigint CHECK (input_tokens >= 0),
    output_tokens bigint CHECK (output_tokens >= 0),
    created_at timestamptz NOT NULL
  );
  CREATE INDEX step_outputs_by_item ON step_outputs (workflow, step, item);

  CREATE TABLE run_items (
    run text COLLATE "C" NOT NULL REFERENCES workflow_runs (id),
    step text COLLATE "C" NOT NULL,
    item text COLLATE "C" NOT NULL,
    status text NOT NULL CHECK (status IN ('done', 'failed')),
    fingerprint bytea NOT NULL CHECK (octet_length(fingerprint) = 32),
    digest bytea CHECK (octet_length(digest) = 32),
    cached boolean,
    error text,
    tries integer NOT NULL CHECK (tries >= 0),
    updated_at timestamptz NOT NULL,
    replaced bytea CHECK (replaced IS NULL OR (status = 'done' AND octet_length(replaced) = 32)),
    PRIMARY KEY (run, step, item),
    CHECK (
      (status = 'done' AND digest IS NOT NULL AND cached IS NOT NULL AND error IS NULL)
      OR (status = 'failed' AND digest IS NULL AND cached IS NULL AND error IS NOT NULL)
    )
  );

  CREATE TABLE invalidations (
    run text COLLATE "C" NOT NULL REFERENCES workflow_runs (id),
    step text COLLATE "C" NOT NULL,
    reason text NOT NULL CHECK (length(reason) > 0),
    at timestamptz NOT NULL,
    PRIMARY KEY (run, step, at)
  );
  `,
  // The workflow engine's EffectLedger (../effect-ledger.ts), never garbage-collected: SQLite's table
  // (its migration 3). No foreign key to `workflow_runs`: a key outlives the run that claimed it. Keys
  // collate as "C" (listed in code point order); a result is jsonb (a small receipt, checked to be
  // JSON). `holder` names the ledger that claimed it last; whether it still runs is told by its
  // advisory lock (holder-lock.ts). The CHECK keeps each state's fields, as SQLite's.
  `
  CREATE TABLE effects (
    key text COLLATE "C" PRIMARY KEY CHECK (key <> ''),
    workflow text NOT NULL,
    run text NOT NULL,
    step text NOT NULL,
    item text NOT NULL,
    state text NOT NULL CHECK (state IN ('claimed', 'unknown', 'done', 'failed')),
    holder text NOT NULL,
    claims integer NOT NULL CHECK (claims >= 1),
    result jsonb,
    error text,
    reason text,
    settled_by text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CHECK (
      (state = 'claimed' AND result IS NULL AND error IS NULL AND reason IS NULL AND settled_by IS NULL)
      OR (state = 'unknown' AND result IS NULL AND error IS NULL AND reason IS NOT NULL)
      OR (state = 'done' AND result IS NOT NULL AND error IS NULL AND reason IS NULL)
      OR (state = 'failed' AND result IS NULL AND error IS NOT NULL AND reason IS NULL)
    )
  );
  CREATE INDEX effects_by_run ON effects (run, key);
  CREATE INDEX effects_by_state ON effects (state, key);
  `,
  // The event mirror (src/events/mirror/): each execution's `events.jsonl`, one row per record, so any
  // node streams it. `position` is the record's sequence in the log (from 0; the SSE id is position
  // + 1); the writer keeps an execution's positions gapless. `line` is the record's line exactly as
  // the log holds it, as text, not jsonb: jsonb would reorder keys and rewrite numbers (`1e3` → 1000),
  // so a record read back would not serialize as the log's reader serializes it (a tool call's input
  // keeps its key order), and it refuses the `\u0000` escape a harness's output may hold. No foreign
  // key to `executions`: workers mirror from the log alone. The primary key is the readers' index.
  `
  CREATE TABLE event_records (
    execution text COLLATE "C" NOT NULL,
    position bigint NOT NULL CHECK (position >= 0),
    line text NOT NULL,
    PRIMARY KEY (execution, position)
  );
  `,
  // Execution leases (src/cluster/lease.ts): which worker drives an execution in cluster mode, until
  // when, under which fencing token. A row is kept for good once an execution was first leased (a
  // release only expires it), so its token only ever grows. No foreign key to `executions`: leases
  // are the dispatch layer's and are taken by execution id alone.
  `
  CREATE TABLE execution_leases (
    execution text COLLATE "C" PRIMARY KEY,
    worker text NOT NULL,
    token bigint NOT NULL CHECK (token >= 1),
    expires_at timestamptz NOT NULL
  );
  `,
  // Execution inboxes (src/cluster/inbox.ts): the turns and commands sent to an execution in cluster
  // mode, whichever node received them, for the worker that holds its lease. `next_number` is the
  // number the next turn takes: incrementing it locks the inbox row until the turn's insert commits,
  // so numbers are gapless and commit in order. `closed` refuses later turns. A turn is `queued`,
  // then `running` (`started_at` set), then `done` (`done_at` set); a command is untaken until a
  // holder takes it, under its lease token. No foreign key to `executions`, as the leases'.
  `
  CREATE TABLE execution_inboxes (
    execution text COLLATE "C" PRIMARY KEY,
    next_number integer NOT NULL CHECK (next_number >= 1),
    closed boolean NOT NULL
  );

  CREATE TABLE execution_turns (
    execution text COLLATE "C" NOT NULL REFERENCES execution_inboxes (execution),
    number integer NOT NULL CHECK (number >= 1),
    text text NOT NULL,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    queued_at timestamptz NOT NULL,
    started_at timestamptz,
    done_at timestamptz,
    PRIMARY KEY (execution, number),
    CHECK ((state = 'queued') = (started_at IS NULL) AND (state = 'done') = (done_at IS NOT NULL))
  );
  CREATE INDEX execution_turns_undone ON execution_turns (execution, number) WHERE state <> 'done';

  CREATE TABLE execution_commands (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    execution text COLLATE "C" NOT NULL,
    command jsonb NOT NULL CHECK (jsonb_typeof(command) = 'object'),
    requested_at timestamptz NOT NULL,
    taken_at timestamptz,
    taken_token bigint CHECK (taken_token >= 1),
    CHECK ((taken_at IS NULL) = (taken_token IS NULL))
  );
  CREATE INDEX execution_commands_untaken ON execution_commands (execution, id) WHERE taken_at IS NULL;
  `,
  // Execution contexts (src/cluster/contexts.ts): the last `context.json` of each execution in cluster
  // mode, what its ended attempts did, so that the worker that carries it on after another machine's
  // worker hands the next attempt every earlier one. `token` is the lease token (execution_leases) of
  // the worker that wrote it: a write is fenced by that table, and never replaces one of a greater
  // token. No foreign key to `executions`, as the leases'.
  `
  CREATE TABLE execution_contexts (
    execution text COLLATE "C" PRIMARY KEY,
    context jsonb NOT NULL CHECK (jsonb_typeof(context) = 'object'),
    updated_at timestamptz NOT NULL,
    token bigint NOT NULL CHECK (token >= 1)
  );
  `,
  // The cluster's admission hold (src/cluster/cluster-hold.ts): one row while an operator holds every
  // worker of the cluster from taking new executions, none otherwise.
  `
  CREATE TABLE cluster_hold (
    scope text PRIMARY KEY CHECK (scope = 'cluster'),
    reason text NOT NULL CHECK (reason <> ''),
    held_at timestamptz NOT NULL
  );
  `,
  // Idempotency keys (docs/api.md, "Idempotency"). `submit_keys` as SQLite's (Store.insertSubmission):
  // written in the execution's own transaction, its primary key deciding between submits racing with
  // one key; `answer` is the execution's row as inserted, as text (jsonb would reorder its keys).
  // `execution_turn_keys` (src/cluster/inbox.ts): a message's key, per execution, written in the
  // transaction that adds its turn, with the answer it had (its turn and how many were queued).
  // Both are kept as long as their execution and turn.
  `
  CREATE TABLE submit_keys (
    key text COLLATE "C" PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 255),
    request_hash text NOT NULL,
    execution text COLLATE "C" NOT NULL UNIQUE REFERENCES executions (id),
    answer text NOT NULL,
    created_at timestamptz NOT NULL
  );

  CREATE TABLE execution_turn_keys (
    execution text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request_hash text NOT NULL,
    number integer NOT NULL,
    queued integer NOT NULL CHECK (queued >= 1),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (execution, key),
    FOREIGN KEY (execution, number) REFERENCES execution_turns (execution, number)
  );
  `,
  // A workflow run names the process that drives it, as SQLite's (its migration of the same name):
  // pid, host name, start time and since when, all four or none; runs written before have none.
  `
  ALTER TABLE workflow_runs
    ADD COLUMN owner_pid integer CHECK (owner_pid > 0),
    ADD COLUMN owner_host text,
    ADD COLUMN owner_start_time text,
    ADD COLUMN owner_since timestamptz,
    ADD CONSTRAINT workflow_runs_owner_whole CHECK (num_nulls(owner_pid, owner_host, owner_start_time, owner_since) IN (0, 4));
  `,
  // What each drive of a workflow run spent per step, and what its plan estimated, as SQLite's (its
  // migration of the same name). Cluster workers add their chunks' spend to a step's row in the
  // transaction that commits the chunk's items, so the row's figures only ever grow.
  `
  CREATE TABLE run_spend (
    run text COLLATE "C" NOT NULL REFERENCES workflow_runs (id),
    drive integer NOT NULL CHECK (drive >= 1),
    step text COLLATE "C" NOT NULL,
    position integer NOT NULL CHECK (position >= 0),
    started_at timestamptz NOT NULL,
    model text,
    price_in double precision CHECK (price_in >= 0),
    price_out double precision CHECK (price_out >= 0),
    items integer NOT NULL CHECK (items >= 0),
    failed integer NOT NULL CHECK (failed >= 0),
    tries integer NOT NULL CHECK (tries >= 0),
    item_ms double precision NOT NULL CHECK (item_ms >= 0),
    input_tokens bigint NOT NULL CHECK (input_tokens >= 0),
    output_tokens bigint NOT NULL CHECK (output_tokens >= 0),
    unreported_tokens integer NOT NULL CHECK (unreported_tokens >= 0),
    unreported_items integer NOT NULL CHECK (unreported_items >= 0),
    wall_ms double precision NOT NULL CHECK (wall_ms >= 0),
    planned boolean NOT NULL,
    planned_items integer CHECK (planned_items >= 0),
    planned_input_tokens double precision,
    planned_output_tokens double precision,
    planned_usd double precision,
    planned_hours double precision,
    PRIMARY KEY (run, drive, step),
    CHECK ((price_in IS NULL) = (price_out IS NULL) AND (model IS NOT NULL OR price_in IS NULL)),
    CHECK (planned = (planned_items IS NOT NULL))
  );
  `,
  // A drive step's kind, as SQLite's (its migration of the same name).
  `
  ALTER TABLE run_spend ADD COLUMN kind text NOT NULL DEFAULT 'code'
    CHECK (kind IN ('code', 'model', 'effect', 'agent', 'review'));
  `,
  // An execution's pull request URL and turn count, as SQLite's (its migration of the same name).
  `
  ALTER TABLE executions
    ADD COLUMN pull_request_url text,
    ADD COLUMN turn_count integer CHECK (turn_count >= 0);
  `,
];

/** The schema version this build writes: the number of migrations. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The table, in each store's schema, of the migrations applied. */
export const MIGRATIONS_TABLE = 'harmflow_migrations';

const Applied = z.object({ version: z.int() });

/**
 * migrate creates `schema` if needed and applies the migrations it lacks, in one transaction that
 * first takes a transaction-scoped advisory lock of that schema: of several processes opening it at
 * once, one applies them and the others wait, then find nothing to do. Throws for a schema written by
 * a newer HarmFlow, rather than misreading it. `schema` is a checked identifier (postgres-store.ts).
 */
export async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`harmflow migrations ${schema}`]);
    // Created only when missing: CREATE SCHEMA IF NOT EXISTS needs the right to create schemas.
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
        version integer PRIMARY KEY CHECK (version >= 1),
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const applied = await client.query(`SELECT coalesce(max(version), 0) AS version FROM ${MIGRATIONS_TABLE}`);
    const { version } = Applied.parse(applied.rows[0]);
    if (version > SCHEMA_VERSION) {
      throw new HarmflowError(
        `PostgreSQL schema ${schema} has schema version ${version}; this HarmFlow knows versions up to ${SCHEMA_VERSION}: upgrade HarmFlow`,
        EXIT.internal,
      );
    }
    for (const [index, step] of MIGRATIONS.entries()) {
      if (index < version) continue;
      await client.query(step);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (version) VALUES ($1)`, [index + 1]);
    }
  });
}
