// The workflow of the progress tests (workflow-progress-cli.test.ts): `ask` (model `sim/slow`, 2 at a
// time) over `items` items, whose provider sleeps `ms` per call and reports 1,000 tokens in and 200
// out, priced; then `tally` (code), one item counting the answers. Both carry an estimate, so even
// the first run's plan, with no history, puts hours on them and the ETA is known from the start.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

export default {
  workflow: {
    name: 'progress',
    params: { items: 40, ms: 100 },
    source: (params) => Array.from({ length: params.items }, (_, index) => `q-${String(index).padStart(3, '0')}`),
    steps: [
      {
        kind: 'model',
        name: 'ask',
        version: '1',
        items: 'source',
        params: ['ms'],
        concurrency: 2,
        estimate: { secondsPerItem: 0.1, inputTokens: 1000, outputTokens: 200 },
        model: { provider: 'sim', name: 'slow' },
        prompt: ({ key, params }) => JSON.stringify({ key, ms: params.ms }),
        output: z.object({ ok: z.boolean() }),
      },
      {
        kind: 'code',
        name: 'tally',
        version: '1',
        items: 'single',
        reads: [{ step: 'ask', items: 'all' }],
        estimate: { secondsPerItem: 0.01 },
        run: ({ inputs }) => ({ answers: Object.keys(inputs.ask).length }),
      },
    ],
  },
  providers: {
    sim: {
      complete: async ({ prompt }) => {
        await sleep(JSON.parse(prompt).ms);
        return { text: '{"ok":true}', inputTokens: 1000, outputTokens: 200 };
      },
    },
  },
  prices: { slow: { inputPerMTok: 3, outputPerMTok: 15 } },
};
