// An item worker process for the cluster item tests (cluster-items.test.ts), running the built dist/.
// Argument: one JSON object { redisUrl, prefix, postgresUrl, schema, concurrency, lock }. Opens the
// PostgreSQL resume store and effects ledger in the schema, starts the item worker, prints `ready`;
// on SIGTERM closes the worker, then the ledger and the store, and exits 0. Errors go to stderr.
import { parseQueueUrl } from '../../dist/cluster/queue-url.js';
import { openPostgresEffectLedger } from '../../dist/store/postgres/effect-ledger.js';
import { openPostgresResumeStore } from '../../dist/store/postgres/resume-store.js';
import { startItemWorker } from '../../dist/workflows/cluster-worker.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const store = await openPostgresResumeStore(config.postgresUrl, { schema: config.schema });
const ledger = await openPostgresEffectLedger(config.postgresUrl, { schema: config.schema });
const worker = await startItemWorker({
  connection: parseQueueUrl(config.redisUrl),
  prefix: config.prefix,
  store,
  ledger,
  concurrency: config.concurrency,
  ...(config.lock !== undefined && { lock: config.lock }),
  onError: (error) => process.stderr.write(`${error.message}\n`),
});
process.once('SIGTERM', async () => {
  await worker.close();
  await ledger.close();
  await store.close();
  process.exit(0);
});
process.stdout.write('ready\n');
