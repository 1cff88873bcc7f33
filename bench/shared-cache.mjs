/**
 * What the shared cache (issue 26) saves a second execution of a task that runs `npm ci`: the time
 * of `npm ci` in a fresh checkout with an empty npm cache (an execution's first, or one with
 * `caches: private`) against the same in a second fresh checkout whose cache the first filled (the
 * second execution with `caches: shared`), beside a bare `node -e ""` in the same rounds. Also, not
 * in the rounds: the warm `npm ci --offline` with the registry stopped, which only a shared cache
 * makes possible.
 *
 * The project is offline and honest about what it holds: 100 real packages (the dependency closure of
 * this repository's installed top-level packages, taken in order until the closure reaches 100, none
 * with an install script or a platform binary), re-packed with `npm pack` from this repository's
 * node_modules into a folder, and served by a loopback registry here (tarballs by URL; the lock file's
 * `resolved` points at it, its `integrity` is the re-packed tarball's). Loopback has no latency and no
 * bandwidth limit, so the cold figure is a floor: over a real network each of the 101 downloads costs
 * more; the registry counts the requests each `npm ci` made (the warm one should make none). npm runs
 * as a harness turn gets it: the `npm_config_cache` HarmFlow sets for the execution
 * (`cachePlan`, dist/), a private HOME, audit, fund and the update check off (they ask the public
 * registry, which is not what is measured).
 *
 *   npm run bench -- shared-cache      # or: npm run build && node bench/shared-cache.mjs [--rounds N]
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { harmflowHome } from '../dist/core/home.js';
import { cachePlan } from '../dist/execution/cache-plan.js';
import { machine } from './machine.mjs';
import { option } from './options.mjs';
import { round, summary } from './stats.mjs';

const rounds = option('--rounds', 5);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** How many packages the project installs, at least. */
const TARGET = 100;

/** What the loopback registry served: requests since the counter was last reset; bytes of all tarballs. */
const served = { requests: 0, bytes: 0 };

const dir = mkdtempSync(join(tmpdir(), 'harmflow-shared-cache-'));
const load = { atStart: loadavg().map(round) };
try {
  const { project, tarballs, count } = packProject();
  const server = await serve(tarballs);
  const registry = `http://127.0.0.1:${server.address().port}/`;
  writeLock(project, registry);

  const bare = [];
  const cold = [];
  const warm = [];
  const requests = { cold: [], warm: [] };
  for (let at = 0; at < rounds; at++) {
    bare.push(await timed(process.execPath, ['-e', ''], dir, {}));
    // A new state directory each round: its shared cache starts empty, as on a new machine.
    const home = harmflowHome(join(dir, `home-${at}`));
    served.requests = 0;
    cold.push(await npmCi(home, 'e1', project, registry));
    requests.cold.push(served.requests);
    served.requests = 0;
    warm.push(await npmCi(home, 'e2', project, registry));
    requests.warm.push(served.requests);
  }
  await new Promise((resolve) => server.close(resolve));
  // With the registry gone: only what the first execution left in the shared cache.
  const offlineHome = harmflowHome(join(dir, `home-${rounds - 1}`));
  const offline = await npmCi(offlineHome, 'e3', project, registry, ['--offline']);
  const coldOffline = await npmCi(harmflowHome(join(dir, 'home-empty')), 'e4', project, registry, ['--offline'], false);

  load.atEnd = loadavg().map(round);
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    npm: spawnText('npm', ['--version']).trim(),
    packages: count,
    tarballBytes: served.bytes,
    registryRequests: requests,
    rounds,
    load,
    bareNodeMs: summary(bare),
    coldMs: summary(cold),
    warmMs: summary(warm),
    warmOfflineMs: round(offline),
    coldOffline: coldOffline === undefined ? 'failed, as it must: nothing to install from' : 'succeeded (unexpected)',
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The project: package.json with the roots' exact versions, and the packages' tarballs re-packed
 * from node_modules (one `npm pack` for all). The lock file is written once the registry's port is
 * known (`writeLock`).
 */
function packProject() {
  const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', '.package-lock.json'), 'utf8')).packages;
  const flagged = (path) => installed[path].hasInstallScript || installed[path].os || installed[path].cpu;
  const tops = Object.keys(installed)
    .filter((path) => path !== '' && !path.slice('node_modules/'.length).includes('/node_modules/'))
    .map((path) => path.slice('node_modules/'.length));
  const clean = tops.filter((name) => closure(installed, [name]).every((path) => !flagged(path)));
  const roots = [];
  for (const name of clean) {
    if (closure(installed, roots).length >= TARGET) break;
    roots.push(name);
  }
  const paths = closure(installed, roots).sort();
  const project = join(dir, 'project');
  const tarballs = join(dir, 'tarballs');
  mkdirSync(project);
  mkdirSync(tarballs);
  const packed = JSON.parse(
    spawnText('npm', [
      'pack',
      '--ignore-scripts',
      '--json',
      '--pack-destination',
      tarballs,
      ...paths.map((p) => join(ROOT, p)),
    ]),
  );
  const dependencies = Object.fromEntries(roots.map((name) => [name, installed[`node_modules/${name}`].version]));
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'bench-project', version: '1.0.0', dependencies }, null, 2)}\n`,
  );
  const packages = { '': { name: 'bench-project', version: '1.0.0', dependencies } };
  paths.forEach((path, index) => {
    const { dev, devOptional, optional, peer, resolved, integrity, ...entry } = installed[path];
    const file = packed[index].filename.replace(/^@/, '').replace('/', '-');
    packages[path] = {
      ...entry,
      resolved: `tarballs/${basename(file)}`,
      integrity: sri(join(tarballs, basename(file))),
    };
  });
  writeFileSync(join(dir, 'lock.template.json'), JSON.stringify(packages));
  return { project, tarballs, count: paths.length };
}

/** The lock file, its `resolved` URLs on the loopback registry. */
function writeLock(project, registry) {
  const packages = JSON.parse(readFileSync(join(dir, 'lock.template.json'), 'utf8'));
  for (const [path, entry] of Object.entries(packages)) {
    if (path !== '') entry.resolved = `${registry}${entry.resolved}`;
  }
  const lock = { name: 'bench-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
  writeFileSync(join(project, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
}

/** The paths (lock keys) of `roots` and everything they need, resolved as Node resolves them. */
function closure(installed, roots) {
  const seen = new Set();
  const pending = roots.map((name) => `node_modules/${name}`);
  while (pending.length > 0) {
    const path = pending.pop();
    if (seen.has(path) || installed[path] === undefined) continue;
    seen.add(path);
    const entry = installed[path];
    for (const name of Object.keys({
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...entry.peerDependencies,
    })) {
      if (entry.peerDependenciesMeta?.[name]?.optional) continue;
      const found = resolveFrom(installed, path, name);
      if (found !== undefined) pending.push(found);
    }
  }
  return [...seen];
}

function resolveFrom(installed, from, name) {
  for (let base = from; ; ) {
    const candidate = `${base}/node_modules/${name}`;
    if (installed[candidate] !== undefined) return candidate;
    const cut = base.lastIndexOf('/node_modules/');
    if (cut < 0) return installed[`node_modules/${name}`] === undefined ? undefined : `node_modules/${name}`;
    base = base.slice(0, cut);
  }
}

function sri(file) {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/** The loopback registry: `GET /tarballs/<file>`, nothing else. */
async function serve(tarballs) {
  served.bytes = readdirSync(tarballs).reduce((sum, file) => sum + statSync(join(tarballs, file)).size, 0);
  const server = createServer((request, response) => {
    served.requests += 1;
    const match = /^\/tarballs\/([^/]+\.tgz)$/.exec(request.url ?? '');
    if (request.method !== 'GET' || match === null) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    createReadStream(join(tarballs, match[1])).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * `npm ci` in a fresh copy of the project, as execution `execution` of state directory `home` runs
 * it; its milliseconds, or undefined when it failed and `mustPass` is false.
 */
async function npmCi(home, execution, project, registry, extra = [], mustPass = true) {
  const checkout = join(dir, `checkout-${basename(home.root)}-${execution}`);
  cpSync(project, checkout, { recursive: true });
  const privateHome = join(dir, `private-home-${basename(home.root)}-${execution}`);
  mkdirSync(privateHome, { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: privateHome,
    npm_config_cache: cachePlan('shared', home, execution).env.npm_config_cache,
    npm_config_registry: registry,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  try {
    return await timed('npm', ['ci', ...extra], checkout, env);
  } catch (error) {
    if (mustPass) throw error;
    return undefined;
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
}

/** Spawn to exit, ms; rejects on a non-zero exit with the stderr's tail. */
function timed(command, args, cwd, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: { ...env, PATH: process.env.PATH },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - start;
      if (code === 0) resolve(ms);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/** A command's stdout; throws on a non-zero exit with the stderr's tail. */
function spawnText(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.slice(0, 3).join(' ')} … exited ${result.status}: ${result.stderr.slice(-2000)}`,
    );
  }
  return result.stdout;
}
