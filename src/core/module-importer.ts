/**
 * How HarmFlow imports a module it is only given at run time: a user's workflow file
 * (workflows/module.ts). By default it is this module's own `import()`.
 *
 * The bundled verbs (cli/bundled-verbs.ts) run code that V8 compiled from its code cache, and such
 * code cannot call `import()`: the callback Node needs for it is not restored with the cache ("A
 * dynamic import callback was not specified"), and Node's loader option for `vm` scripts prints an
 * ExperimentalWarning. So the launcher, which Node loaded itself, hands in its own `import()` through
 * `useModuleImporter` before a bundled verb runs. Set once per process, before any verb runs.
 */

/** Imports the module at `url` (a `file:` URL's href) and returns its namespace. */
export type ModuleImporter = (url: string) => Promise<unknown>;

let importer: ModuleImporter = (url) => import(url);

/** Makes `host` the importer for the rest of the process. */
export function useModuleImporter(host: ModuleImporter): void {
  importer = host;
}

/** Imports the module at `url` with the process's importer. */
export function importModule(url: string): Promise<unknown> {
  return importer(url);
}
