// A workflow a test holds mid-run (test/cli/workflow-status.test.ts): its one item writes the file
// `<release>.started`, then waits until the file `release` (a run parameter) exists, polling every
// 20 ms, and outputs `{ released: true }`. So a run of it stays `running` until the test lets it go,
// or kills the process driving it.
import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export default {
  workflow: {
    name: 'held',
    params: { release: '' },
    steps: [
      {
        kind: 'code',
        name: 'hold',
        version: '1',
        items: 'single',
        params: ['release'],
        estimate: { secondsPerItem: 1 },
        run: async ({ params }) => {
          writeFileSync(`${params.release}.started`, '');
          while (!existsSync(params.release)) await sleep(20);
          return { released: true };
        },
      },
    ],
  },
};
