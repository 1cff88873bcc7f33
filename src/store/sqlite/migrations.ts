/**
 * The SQLite schema, as an ordered list of migrations. `PRAGMA user_version` holds how many have been
 * applied; opening a database applies the missing ones in one transaction. Never edit a migration that
 * has shipped: append a new one.
 */
import type { Database } from 'better-sqlite3';
import { EXIT, HarmflowError } from '../../core/errors.js';

/**
 * Each entry brings the schema from version i to i + 1. Tables are STRICT, so a value of the wrong
 * type is refused on write instead of surfacing on a later read. `exit_code` and `signal` hold JSON
 * text: SQL NULL means "not recorded" and JSON `null` means "none" (a signal ended the process; it
 * exited by itself), which one NULL could not keep apart.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    definition TEXT NOT NULL CHECK (json_valid(definition)),
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE executions (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks (id),
    task_name TEXT NOT NULL,
    repo TEXT NOT NULL,
    base_ref TEXT NOT NULL,
    base_sha TEXT NOT NULL,
    branch TEXT NOT NULL,
    worktree TEXT NOT NULL,
    run_dir TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    deadline TEXT NOT NULL,
    attempt_count INTEGER NOT NULL,
    current_harness TEXT,
    message TEXT
  ) STRICT;
  CREATE INDEX executions_by_created ON executions (created_at, id);
  CREATE INDEX executions_by_task ON executions (task_id);

  CREATE TABLE attempts (
    execution TEXT NOT NULL REFERENCES executions (id),
    number INTEGER NOT NULL CHECK (number >= 1),
    harness TEXT NOT NULL,
    model TEXT,
    simulated INTEGER NOT NULL CHECK (simulated IN (0, 1)),
    session_id TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    outcome TEXT,
    exit_code TEXT CHECK (json_valid(exit_code)),
    signal TEXT CHECK (json_valid(signal)),
    message TEXT,
    resets_at TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cost_usd REAL,
    PRIMARY KEY (execution, number)
  ) STRICT;
  `,
  // The workflow engine's ResumeStore (resume-store.ts). `step_outputs` keeps a rowid (outputs can be
  // large, which WITHOUT ROWID handles badly); `step_outputs_latest` covers latestOutputs, so the
  // ranking reads the index alone and only each item's winner is fetched from the table.
  // `run_items` is WITHOUT ROWID: small rows whose key is the lookup, so the table is its only index.
  // A done item's fingerprint has no foreign key to `step_outputs`: a failed item has no output, and
  // pruning old outputs must stay possible.
  `
  CREATE TABLE workflow_runs (
    id TEXT PRIMARY KEY,
    workflow TEXT NOT NULL,
    params TEXT NOT NULL CHECK (json_valid(params) AND json_type(params) = 'object'),
    state TEXT NOT NULL CHECK (state IN ('running', 'crashed', 'succeeded', 'failed')),
    message TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX workflow_runs_by_created ON workflow_runs (created_at, id);
  CREATE INDEX workflow_runs_by_workflow ON workflow_runs (workflow, created_at, id);

  CREATE TABLE step_outputs (
    fingerprint TEXT PRIMARY KEY,
    workflow TEXT NOT NULL,
    step TEXT NOT NULL,
    item TEXT NOT NULL,
    digest TEXT NOT NULL,
    output TEXT NOT NULL CHECK (json_valid(output)),
    components TEXT NOT NULL CHECK (json_valid(components)),
    duration_ms REAL NOT NULL CHECK (duration_ms >= 0),
    input_tokens INTEGER CHECK (input_tokens >= 0),
    output_tokens INTEGER CHECK (output_tokens >= 0),
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX step_outputs_latest ON step_outputs (workflow, step, item, created_at DESC, fingerprint DESC);

  CREATE TABLE run_items (
    run TEXT NOT NULL REFERENCES workflow_runs (id),
    step TEXT NOT NULL,
    item TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    fingerprint TEXT NOT NULL,
    digest TEXT,
    cached INTEGER CHECK (cached IN (0, 1)),
    error TEXT,
    tries INTEGER NOT NULL CHECK (tries >= 0),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (run, step, item),
    CHECK (
      (status = 'done' AND digest IS NOT NULL AND cached IS NOT NULL AND error IS NULL)
      OR (status = 'failed' AND digest IS NULL AND cached IS NULL AND error IS NOT NULL)
    )
  ) STRICT, WITHOUT ROWID;
  `,
  // The workflow engine's EffectLedger (effect-ledger.ts), never garbage-collected. WITHOUT ROWID: the
  // key is the lookup and results are small receipts. No foreign key to `workflow_runs`: a key outlives
  // the run that claimed it (a later run of the same month must find it), and the ledger stands alone.
  // `holder` names the ledger that claimed it last (whether it still runs is told by its lock file,
  // holder-lock.ts). The CHECK keeps each state's fields: a result only when done, an error only when
  // failed, a reason only when unknown.
  `
  CREATE TABLE effects (
    key TEXT PRIMARY KEY CHECK (key <> ''),
    workflow TEXT NOT NULL,
    run TEXT NOT NULL,
    step TEXT NOT NULL,
    item TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('claimed', 'unknown', 'done', 'failed')),
    holder TEXT NOT NULL,
    claims INTEGER NOT NULL CHECK (claims >= 1),
    result TEXT CHECK (json_valid(result)),
    error TEXT,
    reason TEXT,
    settled_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK (
      (state = 'claimed' AND result IS NULL AND error IS NULL AND reason IS NULL AND settled_by IS NULL)
      OR (state = 'unknown' AND result IS NULL AND error IS NULL AND reason IS NOT NULL)
      OR (state = 'done' AND result IS NOT NULL AND error IS NULL AND reason IS NULL)
      OR (state = 'failed' AND result IS NULL AND error IS NOT NULL AND reason IS NULL)
    )
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX effects_by_run ON effects (run, key);
  CREATE INDEX effects_by_state ON effects (state, key);
  `,
  `
  ALTER TABLE workflow_runs ADD COLUMN module TEXT;
  `,
  // A run may wait for a person (a review): the state CHECK gains 'waiting'. SQLite cannot alter a
  // CHECK, so the table is rebuilt (SQLite's documented way, foreign keys off while it runs).
  `
  CREATE TABLE workflow_runs_next (
    id TEXT PRIMARY KEY,
    workflow TEXT NOT NULL,
    params TEXT NOT NULL CHECK (json_valid(params) AND json_type(params) = 'object'),
    state TEXT NOT NULL CHECK (state IN ('running', 'crashed', 'waiting', 'succeeded', 'failed')),
    message TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    module TEXT
  ) STRICT;
  INSERT INTO workflow_runs_next (id, workflow, params, state, message, created_at, updated_at, module)
    SELECT id, workflow, params, state, message, created_at, updated_at, module FROM workflow_runs;
  DROP TABLE workflow_runs;
  ALTER TABLE workflow_runs_next RENAME TO workflow_runs;
  CREATE INDEX workflow_runs_by_created ON workflow_runs (created_at, id);
  CREATE INDEX workflow_runs_by_workflow ON workflow_runs (workflow, created_at, id);
  `,
  `
  CREATE TABLE invalidations (
    run TEXT NOT NULL REFERENCES workflow_runs (id),
    step TEXT NOT NULL,
    reason TEXT NOT NULL CHECK (length(reason) > 0),
    at TEXT NOT NULL,
    PRIMARY KEY (run, step, at)
  ) STRICT, WITHOUT ROWID;
  `,
  // A done run item remembers the output it had before this run changed it (reviews show the diff).
  `
  ALTER TABLE run_items ADD COLUMN replaced TEXT CHECK (replaced IS NULL OR status = 'done');
  `,
  // Fingerprints, digests and `replaced` become their 32 bytes (../resume-rows.ts converts): half the
  // size in every row and in the fingerprint index, whose random-order inserts dirty most of its pages
  // each commit. `step_outputs` drops its json_valid CHECKs (the engine writes JSON.stringify's or
  // canonical JSON) and its index for latestOutputs keeps only (workflow, step, item): the ranking
  // reads created_at and the fingerprint from the rows it finds, and each insert costs less. Both
  // tables are rebuilt (SQLite's documented way, as migration 5), the rows converted with unhex().
  `
  CREATE TABLE step_outputs_next (
    fingerprint BLOB NOT NULL PRIMARY KEY CHECK (length(fingerprint) = 32),
    workflow TEXT NOT NULL,
    step TEXT NOT NULL,
    item TEXT NOT NULL,
    digest BLOB NOT NULL CHECK (length(digest) = 32),
    output TEXT NOT NULL,
    components TEXT NOT NULL,
    duration_ms REAL NOT NULL CHECK (duration_ms >= 0),
    input_tokens INTEGER CHECK (input_tokens >= 0),
    output_tokens INTEGER CHECK (output_tokens >= 0),
    created_at TEXT NOT NULL
  ) STRICT;
  INSERT INTO step_outputs_next (fingerprint, workflow, step, item, digest, output, components, duration_ms,
      input_tokens, output_tokens, created_at)
    SELECT unhex(fingerprint), workflow, step, item, unhex(digest), output, components, duration_ms, input_tokens,
      output_tokens, created_at
    FROM step_outputs ORDER BY rowid;
  DROP TABLE step_outputs;
  ALTER TABLE step_outputs_next RENAME TO step_outputs;
  CREATE INDEX step_outputs_by_item ON step_outputs (workflow, step, item);

  CREATE TABLE run_items_next (
    run TEXT NOT NULL REFERENCES workflow_runs (id),
    step TEXT NOT NULL,
    item TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    fingerprint BLOB NOT NULL CHECK (length(fingerprint) = 32),
    digest BLOB CHECK (length(digest) = 32),
    cached INTEGER CHECK (cached IN (0, 1)),
    error TEXT,
    tries INTEGER NOT NULL CHECK (tries >= 0),
    updated_at TEXT NOT NULL,
    replaced BLOB CHECK (replaced IS NULL OR (status = 'done' AND length(replaced) = 32)),
    PRIMARY KEY (run, step, item),
    CHECK (
      (status = 'done' AND digest IS NOT NULL AND cached IS NOT NULL AND error IS NULL)
      OR (status = 'failed' AND digest IS NULL AND cached IS NULL AND error IS NOT NULL)
    )
  ) STRICT, WITHOUT ROWID;
  INSERT INTO run_items_next (run, step, item, status, fingerprint, digest, cached, error, tries, updated_at, replaced)
    SELECT run, step, item, status, unhex(fingerprint), unhex(digest), cached, error, tries, updated_at, unhex(replaced)
    FROM run_items;
  DROP TABLE run_items;
  ALTER TABLE run_items_next RENAME TO run_items;
  `,
  // The quota registry (Store.putQuota): one row per harness and account, the last word on it.
  // WITHOUT ROWID: small rows whose key is the lookup. No foreign key to `executions`: the record
  // outlives the execution that observed it, and a reset may be observed by none. `observed_at` is
  // ISO 8601 text of one width, so comparing it as text orders it in time (the upsert relies on it).
  `
  CREATE TABLE quotas (
    harness TEXT NOT NULL,
    account TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('ok', 'warning', 'exhausted')),
    resets_at TEXT,
    utilization REAL CHECK (utilization BETWEEN 0 AND 1),
    source TEXT NOT NULL,
    message TEXT,
    execution TEXT,
    attempt INTEGER CHECK (attempt >= 1),
    observed_at TEXT NOT NULL,
    PRIMARY KEY (harness, account)
  ) STRICT, WITHOUT ROWID;
  `,
  // Submits' idempotency keys (Store.insertSubmission; docs/api.md, "Idempotency"): one row per key,
  // inserted in the execution's own transaction, so an execution submitted with a key and its key
  // are committed together or not at all. The primary key decides between submits racing with one
  // key. `answer` is the execution's row as inserted (JSON): the submit's answer, replayed to a
  // retry. Kept as long as its execution (executions are never deleted). WITHOUT ROWID: the key is
  // the lookup.
  `
  CREATE TABLE submit_keys (
    key TEXT PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 255),
    request_hash TEXT NOT NULL,
    execution TEXT NOT NULL UNIQUE REFERENCES executions (id),
    answer TEXT NOT NULL CHECK (json_valid(answer)),
    created_at TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // A workflow run names the process that drives it (ResumeStore RunOwner), so a run whose process
  // died is told from one that runs: its pid, host name, start time and since when, all four or
  // none. Runs written before have none.
  `
  ALTER TABLE workflow_runs ADD COLUMN owner_pid INTEGER CHECK (owner_pid > 0);
  ALTER TABLE workflow_runs ADD COLUMN owner_host TEXT;
  ALTER TABLE workflow_runs ADD COLUMN owner_start_time TEXT;
  ALTER TABLE workflow_runs ADD COLUMN owner_since TEXT CHECK (
    (owner_pid IS NULL) = (owner_since IS NULL)
    AND (owner_host IS NULL) = (owner_since IS NULL)
    AND (owner_start_time IS NULL) = (owner_since IS NULL)
  );
  `,
  // What each drive of a workflow run (its start, each resume) spent per step, and what its plan
  // estimated (ResumeStore.startDrive, commitItems' spend): one row per step of a drive, written when
  // the drive starts, its spend figures added to by the commits of the items they count. A model
  // step's price is the drive's (NULL: it had none, its dollars are unknown); `planned` tells a drive
  // given a plan from one that was not (its planned figures are NULL where the plan could not tell).
  // WITHOUT ROWID: small rows read by their key.
  `
  CREATE TABLE run_spend (
    run TEXT NOT NULL REFERENCES workflow_runs (id),
    drive INTEGER NOT NULL CHECK (drive >= 1),
    step TEXT NOT NULL,
    position INTEGER NOT NULL CHECK (position >= 0),
    started_at TEXT NOT NULL,
    model TEXT,
    price_in REAL CHECK (price_in >= 0),
    price_out REAL CHECK (price_out >= 0),
    items INTEGER NOT NULL CHECK (items >= 0),
    failed INTEGER NOT NULL CHECK (failed >= 0),
    tries INTEGER NOT NULL CHECK (tries >= 0),
    item_ms REAL NOT NULL CHECK (item_ms >= 0),
    input_tokens INTEGER NOT NULL CHECK (input_tokens >= 0),
    output_tokens INTEGER NOT NULL CHECK (output_tokens >= 0),
    unreported_tokens INTEGER NOT NULL CHECK (unreported_tokens >= 0),
    unreported_items INTEGER NOT NULL CHECK (unreported_items >= 0),
    wall_ms REAL NOT NULL CHECK (wall_ms >= 0),
    planned INTEGER NOT NULL CHECK (planned IN (0, 1)),
    planned_items INTEGER CHECK (planned_items >= 0),
    planned_input_tokens REAL,
    planned_output_tokens REAL,
    planned_usd REAL,
    planned_hours REAL,
    PRIMARY KEY (run, drive, step),
    CHECK ((price_in IS NULL) = (price_out IS NULL) AND (model IS NOT NULL OR price_in IS NULL)),
    CHECK ((planned = 1) = (planned_items IS NOT NULL))
  ) STRICT, WITHOUT ROWID;
  `,
  // A drive step's kind: an agent step's model cost is its executions', which spend does not count.
  // Rows written before are of code, effect and model steps (whose `model` tells them apart enough).
  `
  ALTER TABLE run_spend ADD COLUMN kind TEXT NOT NULL DEFAULT 'code'
    CHECK (kind IN ('code', 'model', 'effect', 'agent', 'review'));
  `,
  // What the engine observed of an execution, on its record: the URL of the latest pull request an
  // attempt opened, and how many turns its harnesses completed. Rows written before have neither
  // (NULL: not recorded, never guessed); the next turn or attempt to end records them.
  `
  ALTER TABLE executions ADD COLUMN pull_request_url TEXT;
  ALTER TABLE executions ADD COLUMN turn_count INTEGER CHECK (turn_count >= 0);
  `,
];

/** The schema version this build writes: the number of migrations. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * migrate applies the migrations `db` lacks, in one IMMEDIATE transaction, so two processes opening a
 * new database at once apply them once (the second waits for the first, then finds nothing to do).
 * Throws for a database written by a newer HarmFlow, rather than misreading it.
 */
export function migrate(db: Database): void {
  // A database at this version (every open but the first after an upgrade) needs no write lock and no
  // foreign key check over every table: the version is read outside a transaction, and read again
  // inside the one that migrates.
  if (db.pragma('user_version', { simple: true }) === SCHEMA_VERSION) return;
  // Foreign keys are off while migrations run (a table rebuild drops a referenced table), and every
  // reference is checked before the transaction commits.
  const enforced = db.pragma('foreign_keys', { simple: true }) === 1;
  db.pragma('foreign_keys = OFF');
  try {
    migrateInTransaction(db);
  } finally {
    if (enforced) db.pragma('foreign_keys = ON');
  }
}

function migrateInTransaction(db: Database): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new HarmflowError(
        `${db.name} has schema version ${version}; this HarmFlow knows versions up to ${SCHEMA_VERSION}: upgrade HarmFlow`,
        EXIT.internal,
      );
    }
    for (const step of MIGRATIONS.slice(version)) db.exec(step);
    const broken = db.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0) {
      throw new HarmflowError(
        `migrating ${db.name} broke ${broken.length} foreign key(s): nothing changed`,
        EXIT.internal,
      );
    }
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
