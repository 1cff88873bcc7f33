// A dispatch worker process that drives executions for real (driveClusterJob), for the crash test of
// drive-job.test.ts, running the built dist/. Argument: one JSON object { redisUrl, prefix,
// postgresUrl, schema, workerId, lock, lease, home, cacheDir, extraPath, env }: `home` its state
// directory, `env` added to its harnesses' environment. Prints `ready` once taking jobs (JSON lines
// on stdout); reported errors go to stderr, one a line. The test kills it with SIGKILL.
import { openExecutionContexts } from '../../dist/cluster/contexts.js';
import { driveClusterJob } from '../../dist/cluster/drive-job.js';
import { openExecutionInbox } from '../../dist/cluster/inbox.js';
import { openExecutionLeases } from '../../dist/cluster/lease.js';
import { parseQueueUrl } from '../../dist/cluster/queue-url.js';
import { startDispatchWorker } from '../../dist/cluster/worker-loop.js';
import { harmflowHome } from '../../dist/core/home.js';
import { openEventMirror } from '../../dist/events/mirror/event-mirror.js';
import { openPgEventSource } from '../../dist/events/mirror/event-source.js';
import { openPostgresStore } from '../../dist/store/postgres/postgres-store.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const options = { schema: config.schema };
const onError = (error) => process.stderr.write(`${error.message}\n`);

const leases = await openExecutionLeases(config.postgresUrl, options);
const store = await openPostgresStore(config.postgresUrl, options);
const inbox = await openExecutionInbox(config.postgresUrl, options);
const mirror = await openEventMirror(config.postgresUrl, options);
const mirrored = await openPgEventSource(config.postgresUrl, options);
const contexts = await openExecutionContexts(config.postgresUrl, options);
const deps = {
  store,
  inbox,
  mirror,
  mirrored,
  contexts,
  home: harmflowHome(config.home),
  cacheDir: config.cacheDir,
  engine: { extraPath: config.extraPath, hostEnv: { ...process.env, ...config.env }, interruptBudgetMs: 1000 },
  onError,
};
await startDispatchWorker({
  connection: parseQueueUrl(config.redisUrl),
  prefix: config.prefix,
  workerId: config.workerId,
  concurrency: 1,
  leases,
  lock: config.lock,
  lease: config.lease,
  onError,
  handle: (execution, context) => driveClusterJob(execution, context, deps),
});
process.stdout.write(`${JSON.stringify({ event: 'ready' })}\n`);
