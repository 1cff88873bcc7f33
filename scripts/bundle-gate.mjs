/**
 * Bundles the gate runner (dist/gates/main.js and what it imports, zod/mini included) into
 * dist/gate-runner/, the code `harmflow gate` loads (bin/harmflow.js). Part of `npm run build`.
 *
 * Why: the runner starts around every tool call, so its start-up is the latency the gates add. Loaded
 * as separate modules it took 2.4× a bare `node -e ""` (zod/mini alone ~90 ms of module loading); one
 * minified bundle, with zod tree-shaken to the schemas the runner uses, took 1.3–1.5× (bench/gate.mjs,
 * BENCHMARKS.md). The four hook dialects are plain imports (a few KiB), so a call loads one module.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${root}dist/gate-runner`;
rmSync(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: `${root}dist/gates/main.js` },
  platform: 'node',
  external: [/^node:/],
  logLevel: 'warn',
});
await bundle.write({
  dir: outDir,
  format: 'esm',
  minify: true,
  entryFileNames: '[name].js',
});
await bundle.close();
