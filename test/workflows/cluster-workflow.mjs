// The workflow the cluster item tests run (cluster-items.test.ts, cluster-limits.test.ts), loaded by
// the coordinator in the test process and by each item worker, from this same path. Parameters say
// where the effect's outbox and the model's call log are, so the file itself never changes.
//
// - `double` (code): n × 2 for each item.
// - `send` (effect): appends its key to the outbox (O_APPEND) after `delayMs`; the provider does NOT
//   dedupe, so only the ledger stands between a key and a second line. Its reconcile reads the outbox.
//   The receipt names the worker's pid, so a test can tell which worker sent what.
// - `ask` (model, provider `sim`, model `limited`): its provider appends `<key> <ms since epoch>` to
//   the call log and answers `{"ok":true}`. Only in the `ask` workflow (a second export).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const keys = (count) => Array.from({ length: count }, (_, index) => `c-${String(index).padStart(4, '0')}`);

const send = {
  workflow: {
    name: 'cluster-send',
    params: { items: 40, outbox: '', delayMs: 0 },
    source: (params) => keys(params.items),
    steps: [
      {
        kind: 'code',
        name: 'double',
        version: '1',
        items: 'source',
        run: ({ key }) => ({ n: Number(key.slice(2)) * 2 }),
      },
      {
        kind: 'effect',
        name: 'send',
        version: '1',
        items: 'source',
        params: ['outbox', 'delayMs'],
        reads: [{ step: 'double', items: 'same' }],
        concurrency: 2,
        key: ({ key }) => `send:${key}`,
        perform: async ({ key, params, inputs }, idempotencyKey) => {
          await sleep(params.delayMs);
          appendFileSync(params.outbox, `${idempotencyKey}\n`);
          return { sent: idempotencyKey, n: inputs.double[key].n, pid: process.pid };
        },
        reconcile: async (idempotencyKey) => {
          // The outbox is named by the run's parameters; the test gives it in the environment too.
          const outbox = process.env.HARMFLOW_TEST_OUTBOX ?? '';
          const lines = existsSync(outbox) ? readFileSync(outbox, 'utf8').split('\n') : [];
          return lines.includes(idempotencyKey)
            ? { done: { sent: idempotencyKey, reconciled: true } }
            : { notDone: true };
        },
      },
    ],
  },
};

export default send;
