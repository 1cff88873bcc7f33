/**
 * Records the real harness CLIs' output for the adapters' replay tests: each verified CLI runs one
 * attempt per case through the real engine, pointed at the loopback model-API simulator, and its raw
 * stdout, stderr and exit are kept under test/fixtures/<harness>/recorded/. Paths of the machine that
 * recorded them are replaced by placeholders (<run>, <cli>).
 *
 * The `failed-*` cases also keep what the hook of a harness that reports exit statuses (its dialect's
 * `reportsExitStatus`) received after the failing call: the CLI runs the same script once more, as
 * the hook lab (test/e2e/hook-lab.ts) runs it — its command and hooks as the adapter installs them,
 * a hook program that logs its stdin and allows in place of the gate runner — and the raw stdin of
 * the `PostToolUse` (Claude Code's `PostToolUseFailure`, Gemini's `AfterTool`) of the failing command
 * goes to test/fixtures/<harness>/hooks/<case>.json, with the lab's paths replaced by /srv/wt (the
 * worktree), /srv/attempt/home (the private home), /srv/lab (the rest of the lab) and /srv/run (the
 * recording's temporary folder).
 *
 *   npm run build && npx harmflow harnesses install
 *   HARMFLOW_HARNESS_BIN_DIRS=… node scripts/record-fixtures.mjs [harness…] [case…]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { harmflowHome } from '../dist/core/home.js';
import { HARNESS_NAMES } from '../dist/core/outcome.js';
import { resolveTask, TaskFile } from '../dist/core/task.js';
import { readEvents } from '../dist/events/log.js';
import { runTask } from '../dist/execution/engine.js';
import { dialectOf } from '../dist/gates/dialects.js';
import { ALLOW } from '../dist/gates/verdict.js';
import { getAdapter } from '../dist/harnesses/registry.js';
import { connectHarness } from '../dist/simulators/model-api/connect.js';
import { startModelApi } from '../dist/simulators/model-api/server.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODEL = { codex: 'gpt-5.5', gemini: 'gemini-2.5-pro' };
/** The fake forge's `gh` (bin/forge/gh), first on the CLIs' PATH. */
const FORGE_BIN = join(ROOT, 'bin', 'forge');
/** A commit needs an identity: without one `git commit` fails (128, `Author identity unknown`) before it looks for changes. */
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'HarmFlow Recorder',
  GIT_AUTHOR_EMAIL: 'recorder@harmflow.invalid',
  GIT_COMMITTER_NAME: 'HarmFlow Recorder',
  GIT_COMMITTER_EMAIL: 'recorder@harmflow.invalid',
};

/**
 * The failing commands of the `failed-*` cases (test/e2e/real-failed-operations.test.ts runs the same):
 *
 * - push: a remote that does not exist — git exits 128, `fatal: 'no-such-remote' does not appear to
 *   be a git repository`.
 * - commit: nothing to commit in a fresh worktree — git exits 1, `nothing to commit, working tree clean`.
 * - pullRequest: the fake forge's `gh pr create` without `--title` and `--body`, which gh refuses when
 *   not interactive — exit 1 with gh's own words, `must provide \`--title\` and \`--body\` … when not
 *   running interactively`. An agent forgetting them is a realistic failure, it needs no network,
 *   account or forge state, and nothing-twice (which looks at the forge's open pull requests) has
 *   nothing to refuse, so the call runs and fails. A missing `gh` (127, the shell's
 *   `command not found`) would test the shell, not gh. Codex gets that anyway: it runs each command
 *   in a login shell (`/bin/bash -lc`), and Debian's /etc/profile resets PATH, so the fake forge
 *   first on PATH never reaches it (recorded as it is: exit 127, `gh: command not found`).
 * - test: `node --test` of a test file the agent just wrote whose one test fails — exit 1, `# fail 1`.
 */
export const FAILING = {
  push: 'git push no-such-remote HEAD',
  commit: 'git commit -m "Add notes"',
  pullRequest: 'gh pr create --base main',
  test: 'node --test failing.test.mjs',
};

/** The test file of `failed-test`: one test, which fails. */
export const FAILING_TEST_FILE = {
  path: 'failing.test.mjs',
  content:
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n\ntest('adds', () => {\n  assert.equal(1 + 1, 3);\n});\n",
};

/**
 * Each case: the simulator's script (the replay test, test/harnesses/recorded*.test.ts, says what
 * each must come out as) and, for the `failed-*` cases, the failing command whose hook input is kept.
 */
export const CASES = {
  edit: { script: [{ write: { path: 'notes.txt', content: 'recorded\n' } }, 'Done: wrote notes.txt.'] },
  quota: { script: [{ quota: true }] },
  'rate-limit': { script: [{ rateLimit: { times: 50, retryAfter: 1 } }] },
  overload: { script: [{ overload: true }] },
  'failed-push': {
    script: [{ shell: { command: FAILING.push } }, 'The push failed: there is no such remote.'],
    failing: FAILING.push,
  },
  'failed-commit': {
    script: [{ shell: { command: FAILING.commit } }, 'There was nothing to commit.'],
    failing: FAILING.commit,
  },
  'failed-pr': {
    script: [{ shell: { command: FAILING.pullRequest } }, 'gh refused to open the pull request.'],
    failing: FAILING.pullRequest,
  },
  'failed-test': {
    script: [{ write: FAILING_TEST_FILE }, { shell: { command: FAILING.test } }, 'The test fails.'],
    failing: FAILING.test,
  },
};

const binDirs = (process.env.HARMFLOW_HARNESS_BIN_DIRS ?? '').split(delimiter).filter(Boolean);
if (binDirs.length === 0) {
  console.error('set HARMFLOW_HARNESS_BIN_DIRS (npx harmflow harnesses install prints it)');
  process.exit(2);
}
const words = process.argv.slice(2);
const unknown = words.filter((word) => !HARNESS_NAMES.includes(word) && !Object.hasOwn(CASES, word));
if (unknown.length > 0) {
  console.error(`unknown harness or case: ${unknown.join(', ')} (cases: ${Object.keys(CASES).join(', ')})`);
  process.exit(2);
}
const pickedHarnesses = words.filter((word) => HARNESS_NAMES.includes(word));
const pickedCases = words.filter((word) => Object.hasOwn(CASES, word));
const chosen = pickedHarnesses.length > 0 ? pickedHarnesses : HARNESS_NAMES;
const cases = pickedCases.length > 0 ? pickedCases : Object.keys(CASES);
const scripts = {};
for (const harness of chosen) {
  for (const name of cases) {
    scripts[`${harness}-${name}`] = CASES[name].script;
    // The hook lab's run follows its own copy: a script's place is kept per name.
    if (CASES[name].failing !== undefined) scripts[`${harness}-${name}-hooks`] = CASES[name].script;
  }
}
const api = await startModelApi({ scripts });
const dir = mkdtempSync(join(tmpdir(), 'harmflow-record-'));
const cliPath = [FORGE_BIN, ...binDirs, process.env.PATH].join(delimiter);
const forgeDir = join(dir, 'forge');
mkdirSync(forgeDir);
/** What every CLI gets besides the simulator's connection: the git identity and the fake forge's store. */
const linkEnv = { ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: forgeDir };
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
    for (const name of cases) {
      const connection = connectHarness(harness, { url: api.url, script: `${harness}-${name}` });
      const link = {
        harness,
        env: { ...connection.env, ...linkEnv },
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
        hostEnv: { ...process.env, PATH: cliPath },
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
      const failures = readEvents(home.eventsFile(result.id))
        .filter((record) => record.type === 'operation' && record.data.kind !== 'file_change')
        .map((record) => `${record.data.kind} ok=${record.data.ok ?? record.data.passed} exit=${record.data.exitCode}`);
      console.log(
        `${harness.padEnd(12)} ${name.padEnd(13)} ${String(exit.outcome).padEnd(16)} exit ${exit.exitCode} signal ${exit.signal} ${failures.join(', ')}`,
      );
      const { failing } = CASES[name];
      if (failing !== undefined && dialectOf(harness).reportsExitStatus) {
        const stdin = await hookInputOf(
          harness,
          `${harness}-${name}-hooks`,
          failing,
          join(dir, 'lab', `${harness}-${name}`),
        );
        const hooks = join(ROOT, 'test', 'fixtures', harness, 'hooks');
        mkdirSync(hooks, { recursive: true });
        writeFileSync(join(hooks, `${name}.json`), stdin);
        console.log(`${harness.padEnd(12)} ${name.padEnd(13)} hook input kept: ${JSON.parse(stdin).hook_event_name}`);
      }
    }
  }
  await store.close();
} finally {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs `harness`'s CLI on `script` the hook lab's way (test/e2e/hook-lab.ts): its command and hooks
 * as the adapter builds and installs them, a hook program that logs each call's stdin and answers
 * allow in the harness's dialect. Returns the stdin of the `PostToolUse` call of `failing`, with the
 * lab's paths replaced.
 */
async function hookInputOf(harness, script, failing, lab) {
  const adapter = getAdapter(harness);
  const dialect = dialectOf(harness);
  const worktree = join(lab, 'worktree');
  const homeDir = join(lab, 'home');
  const log = join(lab, 'hooks.jsonl');
  const program = join(lab, 'hook.mjs');
  execFileSync('git', ['clone', '--quiet', join(dir, 'repo'), worktree]);
  execFileSync('git', ['switch', '--quiet', '-c', `harmflow/record-${harness}`], { cwd: worktree });
  writeFileSync(log, '');
  const answers = Object.fromEntries(adapter.hooks.events.map((event) => [event, dialect.answer(event, ALLOW)]));
  writeFileSync(
    program,
    `import { appendFileSync } from 'node:fs';
const event = process.argv[2];
let stdin = '';
process.stdin.on('data', (chunk) => (stdin += chunk));
process.stdin.on('end', () => {
  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ event, stdin }) + '\\n');
  const answer = ${JSON.stringify(answers)}[event];
  process.stdout.write(answer.stdout);
  process.exitCode = answer.exitCode;
});
`,
  );
  const connection = connectHarness(harness, { url: api.url, script });
  const quote = (word) => `'${word.replaceAll("'", `'\\''`)}'`;
  const spec = adapter.hooks.install(
    adapter.command({
      prompt: 'Do the task.',
      cwd: worktree,
      homeDir,
      ...(MODEL[harness] && { model: MODEL[harness] }),
      extraArgs: connection.args,
      env: { ...connection.env, ...linkEnv },
      path: cliPath,
    }),
    {
      shellCommand: (event) => [process.execPath, program, event].map(quote).join(' '),
      argv: (event) => [process.execPath, program, event],
      homeDir,
      env: {},
    },
  );
  for (const sub of spec.dirs) mkdirSync(join(homeDir, sub), { recursive: true });
  for (const [file, content] of Object.entries(spec.files)) {
    mkdirSync(dirname(join(homeDir, file)), { recursive: true });
    writeFileSync(join(homeDir, file), content);
  }
  await new Promise((resolve, reject) => {
    const child = spawn(spec.command, spec.args, { cwd: worktree, env: spec.env, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const calls = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const call = calls.find(
    (entry) => entry.event === 'PostToolUse' && JSON.parse(entry.stdin).tool_input?.command === failing,
  );
  if (call === undefined) {
    throw new Error(
      `${script}: no PostToolUse hook call for \`${failing}\` (calls: ${calls.map((c) => c.event).join(', ')})`,
    );
  }
  // Claude Code also names its project folder after the path, with '/' as '-'.
  const places = [
    [worktree, '/srv/wt'],
    [homeDir, '/srv/attempt/home'],
    [lab, '/srv/lab'],
    [dir, '/srv/run'],
  ];
  return places.reduce(
    (text, [path, placeholder]) =>
      text.replaceAll(path, placeholder).replaceAll(path.replaceAll('/', '-'), placeholder.replaceAll('/', '-')),
    call.stdin,
  );
}
