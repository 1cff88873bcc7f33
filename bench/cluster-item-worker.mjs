/**
 * An item-worker process of the cluster benchmark (bench/cluster-anchors.mjs), running the built
 * dist/: one startItemWorker per prefix given, on one PostgreSQL ResumeStore. Argument: one JSON
 * object { postgresUrl, schema, prefixes, concurrency }. Prints `ready` once taking jobs; on SIGTERM
 * closes and exits 0.
 */
import { openPostgresResumeStore } from '../dist/store/postgres/resume-store.js';
import { startItemWorker } from '../dist/workflows/cluster-worker.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const store = await openPostgresResumeStore(config.postgresUrl, { schema: config.schema });
const workers = await Promise.all(
  config.prefixes.map((prefix) =>
    startItemWorker({
      connection: { host: '127.0.0.1', port: 6379, db: 0 },
      prefix,
      store,
      concurrency: config.concurrency,
      onError: (error) => process.stderr.write(`cluster-item-worker: ${error.message}\n`),
    }),
  ),
);
process.once('SIGTERM', async () => {
  await Promise.all(workers.map((worker) => worker.close()));
  await store.close();
  process.exit(0);
});
process.stdout.write('ready\n');
