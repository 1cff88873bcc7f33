// The workflow of the rate-limit test (cluster-limits.test.ts): one model step over `items` items,
// model `sim/limited`, whose provider appends `<key> <ms since epoch>` to the call log the prompt
// names and answers `{"ok":true}`. Loaded by the coordinator and by the item worker from this path.
import { appendFileSync } from 'node:fs';
import { z } from 'zod';

export default {
  workflow: {
    name: 'cluster-ask',
    params: { items: 15, log: '' },
    source: (params) => Array.from({ length: params.items }, (_, index) => `q-${String(index).padStart(3, '0')}`),
    steps: [
      {
        kind: 'model',
        name: 'ask',
        version: '1',
        items: 'source',
        params: ['log'],
        model: { provider: 'sim', name: 'limited' },
        prompt: ({ key, params }) => JSON.stringify({ key, log: params.log }),
        output: z.object({ ok: z.boolean() }),
      },
    ],
  },
  providers: {
    sim: {
      complete: async ({ prompt }) => {
        const { key, log } = JSON.parse(prompt);
        appendFileSync(log, `${key} ${Date.now()}\n`);
        return { text: '{"ok":true}', inputTokens: 1, outputTokens: 1 };
      },
    },
  },
};
