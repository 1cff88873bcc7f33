// A dispatch worker process for the crash tests (worker-process.test.ts), running the built dist/.
// Argument: one JSON object { redisUrl, prefix, postgresUrl, schema, workerId, lock, lease }. Its
// handler never finishes on its own: it prints a `start` line, waits for its signal to abort, then
// prints an `aborted` line and returns. Prints `ready` once taking jobs; on SIGTERM it closes the
// worker (which waits for its handlers) and the leases, prints `closed` and exits 0. Lines on stdout
// are JSON; reported errors go to stderr, one a line.
import { openExecutionLeases } from '../../dist/cluster/lease.js';
import { parseQueueUrl } from '../../dist/cluster/queue-url.js';
import { startDispatchWorker } from '../../dist/cluster/worker-loop.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const leases = await openExecutionLeases(config.postgresUrl, { schema: config.schema });
const worker = await startDispatchWorker({
  connection: parseQueueUrl(config.redisUrl),
  prefix: config.prefix,
  workerId: config.workerId,
  concurrency: 1,
  leases,
  lock: config.lock,
  lease: config.lease,
  onError: (error) => process.stderr.write(`${error.message}\n`),
  handle: async (execution, { token, signal }) => {
    print({ event: 'start', execution, token });
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    print({ event: 'aborted', execution, token, reason: signal.reason?.message ?? String(signal.reason) });
  },
});
process.once('SIGTERM', async () => {
  await worker.close();
  await leases.close();
  print({ event: 'closed' });
  process.exit(0);
});
print({ event: 'ready' });
