// A workflow whose spend a test reads back (test/cli/workflow-status.test.ts): a model step `label`
// over c-1…c-3 on a fake provider that answers each call with 100,000 input and 20,000 output tokens
// ($0.60 at the module's price), and a code step `count` reading all its labels.
// - While the file named by the parameter `broken` exists, c-1's answer is not JSON (a defect).
// - c-2's first call in each process fails with HTTP 529 before answering (no tokens reported), and is
//   retried.
import { existsSync } from 'node:fs';
import { z } from 'zod';

const failedOnce = new Set();

const fake = {
  async complete({ prompt }) {
    const [key, broken] = prompt.split(' ');
    if (key === 'c-2' && !failedOnce.has(key)) {
      failedOnce.add(key);
      throw Object.assign(new Error('overloaded'), { status: 529 });
    }
    const text = key === 'c-1' && existsSync(broken) ? 'not json' : JSON.stringify({ label: `label of ${key}` });
    return { text, inputTokens: 100_000, outputTokens: 20_000 };
  },
};

export default {
  workflow: {
    name: 'spend',
    params: { broken: '' },
    source: () => ['c-1', 'c-2', 'c-3'],
    steps: [
      {
        kind: 'model',
        name: 'label',
        version: '1',
        items: 'source',
        params: ['broken'],
        model: { provider: 'fake', name: 'm1' },
        prompt: ({ key, params }) => `${key} ${params.broken}`,
        output: z.object({ label: z.string() }),
        estimate: { secondsPerItem: 360, inputTokens: 100_000, outputTokens: 20_000 },
      },
      {
        kind: 'code',
        name: 'count',
        version: '1',
        items: 'single',
        reads: [{ step: 'label', items: 'all' }],
        estimate: { secondsPerItem: 1 },
        run: ({ inputs }) => Object.keys(inputs.label ?? {}).length,
      },
    ],
  },
  providers: { fake },
  prices: { m1: { inputPerMTok: 3, outputPerMTok: 15 } },
};
