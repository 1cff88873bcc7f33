/**
 * The bundles `npm run build` makes from dist/, each one minified file (or a few) that holds its own
 * code and its packages', so a start loads one file instead of hundreds of modules.
 *
 * 1. The gate runner (dist/gates/main.js, zod/mini included) into dist/gate-runner/: the runner starts
 *    around every tool call, so its start-up is the latency the gates add. Loaded as separate modules
 *    it took 2.4× a bare `node -e ""` (zod/mini alone ~90 ms of module loading); one bundle, with zod
 *    tree-shaken to the schemas the runner uses, took 1.3–1.5× (bench/gate.mjs, BENCHMARKS.md).
 * 2. The everyday verbs' entries into dist/cli-bundle/ (src/cli/bundled-verbs.ts runs them): the
 *    record verbs, the terminal UI and the workflow verbs each with only their own code; `--help` from the verbs' usage
 *    recorded here from the whole program; the manifest that maps verbs to entries; and
 *    src/cli/bundled-verbs.ts itself as launch.cjs, which bin/harmflow.js requires.
 *
 * `UNMINIFIED=1 node scripts/bundle.mjs` writes the verb entries unminified, so a CPU profile of a
 * verb (`node --cpu-prof bin/harmflow.js …`) names their functions and lines.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const packageVersion = (await import(pathToFileURL(`${root}package.json`).href, { with: { type: 'json' } })).default
  .version;

async function bundleGateRunner() {
  const outDir = `${dist}/gate-runner`;
  rmSync(outDir, { recursive: true, force: true });
  const bundle = await rolldown({
    input: { main: `${dist}/gates/main.js` },
    platform: 'node',
    external: [/^node:/],
    logLevel: 'warn',
  });
  await bundle.write({ dir: outDir, format: 'esm', minify: true, entryFileNames: '[name].js' });
  await bundle.close();
}

/**
 * The verb entries: which module registers their verbs, what the entry waits for before it runs a
 * verb, the plugins that shape its packages and the packages it leaves in node_modules besides
 * EXTERNAL. Each is CommonJS, which src/cli/bundled-verbs.ts
 * compiles with V8's code cache; the terminal UI's takes three plugins for that and for its first
 * frame (below).
 */
const ENTRIES = {
  records: { module: 'cli/records.js', register: 'registerRecords', plugins: [] },
  ui: {
    module: 'cli/ui.js',
    register: 'registerUi',
    waitsFor: { module: 'tui/deferred-yoga.js', name: 'yogaLoaded' },
    plugins: [yogaDeferred(), inkWithoutDevtools(), fastText()],
  },
  // The cluster's clients stay in node_modules: they load only with --store/--queue, and bullmq reads
  // its scripts from its own folder. zod is bundled like the other entries'; a workflow file imports
  // its own (node_modules' ES module build), and zod's classes match across copies (its instanceof
  // checks traits), so the engine tells a ZodError of the file's schemas as it does its own.
  workflow: {
    module: 'cli/workflow.js',
    register: 'registerWorkflow',
    plugins: [],
    external: ['pg', 'bullmq', 'ioredis'],
  },
};
/** Packages a bundle leaves to node_modules: Node's own and the native addon. */
const EXTERNAL = [/^node:/, 'better-sqlite3'];
const VIRTUAL = '\0harmflow-entry:';

async function bundleVerbs() {
  const outDir = `${dist}/cli-bundle`;
  rmSync(outDir, { recursive: true, force: true });
  const { buildProgram } = await import(`${dist}/cli/program.js`);
  const { describeVerbs } = await import(`${dist}/cli/root-help.js`);
  const { rootCommand } = await import(`${dist}/cli/root-command.js`);
  const manifest = { version: packageVersion, verbs: describeVerbs(buildProgram()), entries: {} };
  if (rootCommand().version() !== packageVersion) {
    throw new Error(`src/cli/root-command.ts says ${rootCommand().version()}, package.json ${packageVersion}`);
  }
  const sources = { 'root-help': rootHelpSource() };
  for (const [name, entry] of Object.entries(ENTRIES)) sources[name] = verbSource(entry);
  for (const [name, source] of Object.entries(sources)) {
    const verbs = ENTRIES[name] ? await verbsOf(ENTRIES[name]) : [];
    const plugins = ENTRIES[name]?.plugins ?? [];
    const external = [...EXTERNAL, ...(ENTRIES[name]?.external ?? [])];
    manifest.entries[name] = { ...(await bundleEntry(outDir, name, source, plugins, external)), verbs };
  }
  writeFileSync(`${outDir}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  await bundleLauncher(outDir);
}

/** src/cli/bundled-verbs.ts as CommonJS, for bin/harmflow.js to require without the ES module loader. */
async function bundleLauncher(outDir) {
  const bundle = await rolldown({
    input: `${dist}/cli/bundled-verbs.js`,
    platform: 'node',
    external: [/^node:/],
    logLevel: 'warn',
  });
  await bundle.write({ file: `${outDir}/launch.cjs`, format: 'cjs', minify: true });
  await bundle.close();
}

/** An entry that runs the verbs `entry.register` adds to the root command, once what it waits for has resolved. */
function verbSource(entry) {
  const { waitsFor } = entry;
  return `import { runCli } from '${dist}/cli/run-cli.js';
import { overrideExits, rootCommand } from '${dist}/cli/root-command.js';
import { useModuleImporter } from '${dist}/core/module-importer.js';
import { ${entry.register} } from '${dist}/${entry.module}';
${waitsFor ? `import { ${waitsFor.name} } from '${dist}/${waitsFor.module}';` : ''}
export async function main(argv, verbs, importModule) {
  useModuleImporter(importModule);
  ${waitsFor ? `await ${waitsFor.name};` : ''}
  const program = rootCommand();
  ${entry.register}(program);
  return runCli(argv, overrideExits(program));
}
`;
}

function rootHelpSource() {
  return `import { runCli } from '${dist}/cli/run-cli.js';
import { rootHelpProgram } from '${dist}/cli/root-help.js';
export function main(argv, verbs) {
  return runCli(argv, rootHelpProgram(verbs));
}
`;
}

/** The verbs `entry.register` adds. */
async function verbsOf(entry) {
  const { rootCommand } = await import(`${dist}/cli/root-command.js`);
  const program = rootCommand();
  (await import(`${dist}/${entry.module}`))[entry.register](program);
  return program.commands.map((command) => command.name());
}

/** `code` with `text` replaced by `by`, `count` times; the build fails when `text` is not there as often. */
function replaceExactly(code, id, text, by, count = 1) {
  const found = code.split(text).length - 1;
  if (found !== count)
    throw new Error(`scripts/bundle.mjs: ${id} says ${JSON.stringify(text)} ${found} times, not ${count}`);
  return code.replaceAll(text, by);
}

/**
 * The terminal UI gives Ink yoga-layout through src/tui/deferred-yoga.ts, loaded without a top-level
 * await (which CommonJS lacks), and loads yoga's WebAssembly from the bytes its module carries: left
 * to itself, yoga's Emscripten loader hands its `data:` URL to `fetch` whenever there is one, and
 * Node's `fetch` loads undici for it — a tenth of the UI's first frame (bench/ui-first-frame.mjs).
 */
function yogaDeferred() {
  const deferred = `${dist}/tui/deferred-yoga.js`;
  return {
    name: 'yoga-deferred',
    resolveId: (id, importer) => (id === 'yoga-layout' && importer !== deferred ? deferred : null),
    transform(code, id) {
      if (!/[/\\]yoga-layout[/\\]dist[/\\]binaries[/\\]yoga-wasm-base64-esm\.js$/.test(id)) return null;
      return replaceExactly(code, id, '"function"!=typeof fetch', '!0', 2);
    },
  };
}

/**
 * Ink's reconciler awaits, at its top level, React's devtools and its own package.json when
 * `DEV=true` (a switch for Ink's developers, not HarmFlow's users). CommonJS has no top-level await,
 * so in the UI's bundle `DEV=true` loads neither: React's devtools are not bundled anyway.
 */
function inkWithoutDevtools() {
  return {
    name: 'ink-without-devtools',
    transform(code, id) {
      if (!/[/\\]ink[/\\]build[/\\]reconciler\.js$/.test(id)) return null;
      const devtools = replaceExactly(code, id, "await import('./devtools.js');", 'void 0;');
      return replaceExactly(devtools, id, '? await loadPackageJson()', '? { name: undefined, version: undefined }');
    },
  };
}

/**
 * Where Ink and its helpers import string-width (the one Ink depends on, not wrap-ansi's older copy)
 * or @alcalzone/ansi-tokenize, the UI's bundle gives them src/tui/fast-text/'s fast paths, which
 * return what the packages return and import them for everything else.
 */
function fastText() {
  const fast = {
    'string-width': `${dist}/tui/fast-text/string-width.js`,
    '@alcalzone/ansi-tokenize': `${dist}/tui/fast-text/ansi-tokenize.js`,
  };
  return {
    name: 'fast-text',
    async resolveId(id, importer, options) {
      const path = fast[id];
      if (path === undefined || importer === undefined || importer === path) return null;
      const wrapped = await this.resolve(id, path, { ...options, skipSelf: true });
      const imported = await this.resolve(id, importer, { ...options, skipSelf: true });
      return imported?.id === wrapped?.id ? path : null;
    },
  };
}

/**
 * Two packages load child_process when they load, for what HarmFlow's starts never do: commander for
 * a verb run as a separate executable, and terminal-size (Ink's) to ask `tput` or `stty` for the size
 * of an output that is not a terminal. That is 6–20 ms of a start (child_process, net, dgram and their
 * streams). In the bundles it loads on the first such call instead. The build fails if either
 * package's line is no longer there.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  transform(code, id) {
    if (/[/\\]commander[/\\]lib[/\\]command\.js$/.test(id)) {
      return replaceExactly(
        code,
        id,
        "const childProcess = require('node:child_process');",
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      );
    }
    if (/[/\\]terminal-size[/\\]index\.js$/.test(id)) {
      return replaceExactly(
        code,
        id,
        "import {execFileSync} from 'node:child_process';",
        "const execFileSync = (...args) => process.getBuiltinModule('node:child_process').execFileSync(...args);",
      );
    }
    return null;
  },
};

/** Bundles one entry; returns its file and the packages it holds or loads, at start or later. */
async function bundleEntry(outDir, name, source, plugins, external) {
  const bundle = await rolldown({
    input: { [name]: `${VIRTUAL}${name}` },
    platform: 'node',
    external,
    logLevel: 'warn',
    // React's production build only: the development one times every render, and doubles the chunk.
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    plugins: [
      lazyChildProcess,
      ...plugins,
      {
        name: 'harmflow-entries',
        resolveId: (id) => (id === `${VIRTUAL}${name}` ? id : null),
        load: (id) => (id === `${VIRTUAL}${name}` ? source : null),
      },
    ],
  });
  const { output } = await bundle.write({
    dir: outDir,
    format: 'cjs',
    minify: !process.env.UNMINIFIED,
    entryFileNames: '[name].cjs',
    chunkFileNames: `${name}-[hash].cjs`,
  });
  await bundle.close();
  const chunks = new Map(output.filter((item) => item.type === 'chunk').map((chunk) => [chunk.fileName, chunk]));
  const file = `${name}.cjs`;
  return { file, packages: packagesOf(chunks, file) };
}

/** The packages in `file`'s chunk and every chunk it imports (at once or later), and the externals they import. */
function packagesOf(chunks, file) {
  const packages = new Set();
  const seen = new Set();
  const visit = (fileName) => {
    if (seen.has(fileName)) return;
    seen.add(fileName);
    const chunk = chunks.get(fileName);
    if (chunk === undefined) {
      const bare = /^((?:@[^/]+\/)?[^/]+)/.exec(fileName)?.[1];
      if (bare && !bare.startsWith('node:')) packages.add(bare);
      return;
    }
    for (const id of chunk.moduleIds) {
      const match = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)[/\\]/.exec(id);
      if (match) packages.add(match[1].replace('\\', '/'));
    }
    for (const imported of [...chunk.imports, ...chunk.dynamicImports]) visit(imported);
  };
  visit(file);
  return [...packages].sort();
}

await bundleGateRunner();
await bundleVerbs();
