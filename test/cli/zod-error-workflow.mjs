// A workflow whose one code step throws a ZodError of this file's own zod (test/cli/bundled-verbs.test.ts):
// the engine must tell it for a schema error ("invalid: …", not retried) whichever zod it holds itself.
import { z } from 'zod';

export default {
  workflow: {
    name: 'zod-error',
    steps: [
      {
        kind: 'code',
        name: 'check',
        version: '1',
        items: 'single',
        estimate: { secondsPerItem: 1 },
        run: () => z.object({ label: z.string() }).parse({ label: 7 }),
      },
    ],
  },
};
