/**
 * Records the real harness CLIs' output for the adapters' replay tests: each verified CLI runs one
 * attempt per case through the real engine, pointed at the loopback model-API simulator, and its raw
 * stdout, stderr and exit are kept under test/fixtures/<harness>/recorded/. Paths of the machine that
 * recorded them are replaced by placeholders (<run>, <cli>).
 *
 *   npm run build && npx harmflow harnesses install
 *   HARMFLOW_HARNESS_BIN_DIRS=… node scripts/record-fixtures.mjs [harness…]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { harmflowHome } from '../dist/core/home.js';
import { HARNESS_NAMES } from '../dist/core/outcome.js';
import { resolveTask, TaskFile } from '../dist/core/task.js';
import { readEvents } from '../dist/events/log.js';
import { runTask } from '../dist/execution/engine.js';
import { connectHarness } from '../dist/simulators/model-api/connect.js';
import { startModelApi } from '../dist/simulators/model-api/server.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODEL = { codex: 'gpt-5.5', gemini: 'gemini-2.5-pro' };

/** Each case: the simulator's script, and the outcome the replay test expects. */
export const CASES = {
  edit: { script: [{ write: { path: 'notes.txt', content: 'recorded\n' } }, 'Done: wrote notes.txt.'] },
  quota: { script: [{ quota: true }] },
  'rate-limit': { script: [{ rateLimit: { times: 50, retryAfter: 1 } }] },
  overload: { script: [{ overload: true }] },
};

const binDirs = (process.env.HARMFLOW_HARNESS_BIN_DIRS ?? '').split(delimiter).filter(Boolean);
if (binDirs.length === 0) {
  console.error('set HARMFLOW_HARNESS_BIN_DIRS (npx harmflow harnesses install prints it)');
  process.exit(2);
}
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : HARNESS_NAMES;
const scripts = {};
for (const harness of chosen)
  for (const [name, { script }] of Object.entries(CASES)) scripts[`${harness}-${name}`] = script;
const api = await startModelApi({ scripts });
const dir = mkdtempSync(join(tmpdir(), 'harmflow-record-'));
try {
  const repo = join(dir, 'repo');
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
  execFileSync(
    'git',
    ['-c', 'user.name=r', '-c', 'user.email=r@r', 'commit', '--quiet', '--allow-empty', '-m', 'init'],
    { cwd: repo },
  );
  const home = harmflowHome(join(dir, 'home'));
  mkdirSync(home.root, { recursive: true });
  const store = openSqliteStore(home.database);
  for (const harness of chosen) {
    for (const name of Object.keys(CASES)) {
      const connection = connectHarness(harness, { url: api.url, script: `${harness}-${name}` });
      const link = {
        harness,
        env: connection.env,
        args: connection.args,
        ...(MODEL[harness] && { model: MODEL[harness] }),
      };
      const task = resolveTask(
        TaskFile.parse({
          name: 'record',
          repo,
          baseRef: 'main',
          prompt: 'Write notes.txt.',
          harness: link,
          timeout: '3m',
        }),
        (path) => path,
      );
      const result = await runTask(task, {
        home,
        store,
        hostEnv: { ...process.env, PATH: [...binDirs, process.env.PATH].join(delimiter) },
      });
      const ended = readEvents(home.eventsFile(result.id)).find((record) => record.type === 'attempt.ended');
      const attemptDir = home.attemptDir(result.id, 1);
      // Claude Code also names its project folder after the path, with '/' as '-'.
      const scrub = (text) =>
        binDirs.reduce(
          (out, bin) => out.replaceAll(dirname(dirname(bin)), '<cli>'),
          text.replaceAll(dir, '<run>').replaceAll(dir.replaceAll('/', '-'), '-<run>'),
        );
      const target = join(ROOT, 'test', 'fixtures', harness, 'recorded');
      mkdirSync(target, { recursive: true });
      writeFileSync(join(target, `${name}.jsonl`), scrub(readFileSync(join(attemptDir, 'stdout.log'), 'utf8')));
      writeFileSync(join(target, `${name}.stderr.log`), scrub(readFileSync(join(attemptDir, 'stderr.log'), 'utf8')));
      const exit = {
        exitCode: ended?.data.exitCode ?? null,
        signal: ended?.data.signal ?? null,
        outcome: ended?.data.outcome,
      };
      writeFileSync(join(target, `${name}.exit.json`), `${JSON.stringify(exit)}\n`);
      console.log(
        `${harness.padEnd(12)} ${name.padEnd(11)} ${String(exit.outcome).padEnd(16)} exit ${exit.exitCode} signal ${exit.signal}`,
      );
    }
  }
  await store.close();
} finally {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
}
