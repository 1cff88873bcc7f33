/**
 * A module hook for bench/cli-start.mjs and test/cli/import-graph.test.ts: `node --import
 * scripts/loaded-modules.mjs …` appends the URL of every module the process loads, one a line, to
 * the file $HARMFLOW_LOADED_MODULES: the ES modules as they load (Node 20 runs hooks on their own
 * thread; each `load` appends synchronously), and the CommonJS modules `require` loaded (which the
 * hooks do not see) from the require cache when the process exits.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

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

const list = process.env.HARMFLOW_LOADED_MODULES;
if (list) {
  const { cache } = createRequire(import.meta.url);
  process.once('exit', () => {
    const urls = Object.keys(cache).map((file) => pathToFileURL(file).href);
    if (urls.length > 0) appendFileSync(list, `${urls.join('\n')}\n`);
  });
}
