/**
 * yoga-layout, Ink's layout engine, as the terminal UI's bundle gives it to Ink (scripts/bundle.mjs
 * puts this module where Ink imports `yoga-layout`): the bundle is CommonJS, so that it starts from
 * V8's code cache (src/cli/bundled-verbs.ts), and CommonJS has no top-level await — with which
 * yoga-layout's own entry waits for its WebAssembly. Here the same object is empty until
 * `yogaLoaded` resolves; Ink reads it only when it creates and lays out nodes, and the bundle's entry
 * waits for `yogaLoaded` before it runs the verb. Outside the bundle Ink imports yoga-layout itself
 * and nothing imports this module.
 */
import { loadYoga, type Yoga } from 'yoga-layout/load';

const yoga = {} as Yoga;
export default yoga;

/** Resolves when `yoga` holds the engine (started when this module loads). */
export const yogaLoaded: Promise<void> = loadYoga().then((loaded) => {
  Object.assign(yoga, loaded);
});
