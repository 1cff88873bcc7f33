/**
 * A module hook for bench/cli-start.mjs and test/cli/import-graph.test.ts: `node --import
 * scripts/loaded-modules.mjs …` appends the URL of every module the process loads, one a line, to
 * the file $HARMFLOW_LOADED_MODULES. Node 20 runs hooks on their own thread; each `load` appends
 * synchronously, so the list is whole when the process exits.
 */
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
const list = process.env.HARMFLOW_LOADED_MODULES;
export async function load(url, context, next) {
  if (list && url.startsWith('file:')) appendFileSync(list, url + '\\n');
  return next(url, context);
}
`)}`,
);
