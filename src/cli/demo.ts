/**
 * `harmflow demo` — the whole story on a fresh machine, with no API key, no harness CLI and no
 * network, every harness played by the simulator, in a temporary repository. Act 1: a task whose
 * chain is claude-code → codex; the first harness commits and pushes part of the work, then runs out
 * of quota; the second is given the handoff, does the rest without redoing anything — the one thing it
 * tries again, a pull request, the nothing-twice gate refuses — and the tests pass. Act 2 (demo-service.ts): the session service is killed with SIGKILL in the middle of a turn
 * and started again; it carries the execution on, the interrupted turn delivered again (marked) and
 * a follow-up message once. Each act's verdict is checked, not assumed: exit code 0 only when every
 * claim of both holds.
 */
import { rmSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT } from '../core/errors.js';
import { harmflowHome } from '../core/home.js';
import { loadTaskFile } from '../core/task-file.js';
import { readEvents } from '../events/log.js';
import type { EventRecord } from '../events/schema.js';
import { type ExecutionResult, runTask } from '../execution/engine.js';
import { runCommand } from '../proc/run.js';
import { probeSandbox } from '../proc/sandbox-probe.js';
import { readPulls } from '../simulators/forge/store.js';
import { FORGE_BIN_DIR } from '../simulators/launch.js';
import { openHome } from './context-home.js';
import { runServiceAct, type Verdict } from './demo-service.js';
import { type DemoLayout, demoEnv, setUpDemo } from './demo-setup.js';
import { terminalOutput } from './terminal-output.js';
import { timelineLines } from './timeline-output.js';

const print = (text = ''): void => {
  process.stdout.write(`${text}\n`);
};

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'show the whole story, every harness simulated: a quota switch from claude-code to codex, then the service surviving kill -9',
    )
    .option('--clean', 'delete the temporary folder afterwards')
    .action(async (options: { clean?: boolean }) => {
      const layout = await setUpDemo();
      print('HarmFlow demo');
      print('Every harness below is PLAYED BY THE SIMULATOR `sim`: no API key, no harness CLI, no network.');
      print("The simulator prints each CLI's real output format, so HarmFlow's real claude-code and codex");
      print('adapters parse and classify it, and it really edits, tests, commits, pushes and opens the PR.');
      print();
      print('Act 1 — claude-code runs out of quota; codex carries the same execution on from the handoff');
      print();
      print(`repository  ${layout.project}  (a small date library with a test suite)`);
      print(`origin      ${layout.origin}`);
      print(`task        ${layout.taskFile}  (chain: claude-code → codex)`);
      print();
      const { home, store } = openHome(layout.home);
      const timeline = timelineLines(terminalOutput(process.stdout, process.env));
      let result: ExecutionResult;
      try {
        result = await runTask(loadTaskFile(layout.taskFile), {
          home,
          store,
          extraPath: [FORGE_BIN_DIR],
          hostEnv: { ...process.env, ...demoEnv(layout) },
          onRecord: (record) => {
            const line = timeline(record);
            if (line !== undefined) print(line);
          },
        });
      } finally {
        await store.close();
      }
      const quota = await checkVerdict(result, layout);
      print();
      print(`context.json  ${result.contextFile}`);
      print(`look again    HARMFLOW_HOME=${layout.home} npx harmflow events ${result.id}`);
      print(`              HARMFLOW_HOME=${layout.home} npx harmflow context ${result.id}`);
      print();
      print('Act 2 — the session service: kill -9 in the middle of a turn, start it again, nothing lost or done twice');
      print('`harmflow serve` runs as a child process on the same state directory; the task is played by the');
      print('simulator as claude-code; the follow-up resumes the same harness session.');
      print();
      print(`task        ${layout.serviceTaskFile}  (claude-code; a turn takes about 3 s)`);
      const service = await runServiceAct(layout, print);
      print();
      const ok = quota.ok && service.ok;
      print(`${ok ? 'PASS' : 'FAIL'}: act 1: ${quota.text} Act 2: ${service.text}`);
      if (options.clean) rmSync(layout.root, { recursive: true, force: true });
      process.exitCode = ok ? EXIT.ok : EXIT.executionFailed;
    });
}

/** Checks every claim of the demo's story against the workspace, the remote and the forge. */
export async function checkVerdict(result: ExecutionResult, layout: DemoLayout): Promise<Verdict> {
  const problems: string[] = [];
  const [first, second] = result.attempts;
  if (result.state !== 'succeeded') problems.push(`the execution ended ${result.state}`);
  if (result.attempts.length !== 2) problems.push(`${result.attempts.length} attempts instead of 2`);
  if (first?.outcome !== 'quota_exhausted') problems.push(`attempt 1 ended ${first?.outcome}`);
  if (second?.outcome !== 'completed') problems.push(`attempt 2 ended ${second?.outcome}`);

  const git = (...args: string[]) => runCommand('git', args, { cwd: result.worktree, timeoutMs: 10_000 });
  const subjects = (await git('log', '--format=%s', `${result.baseSha}..HEAD`)).stdout.trim().split('\n');
  const duplicates = subjects.filter((subject, index) => subjects.indexOf(subject) !== index);
  if (duplicates.length > 0) problems.push(`commits made twice: ${duplicates.join(', ')}`);
  const head = (await git('rev-parse', 'HEAD')).stdout.trim();
  const remote = (await git('ls-remote', 'origin', `refs/heads/${result.branch}`)).stdout.split('\t')[0];
  if (remote !== head) problems.push('the branch on origin is not the final HEAD');
  const pulls = (await readPulls(layout.forgeDir)).filter((pull) => pull.head === result.branch);
  if (pulls.length !== 1) problems.push(`${pulls.length} pull requests for the branch instead of 1`);
  const records = readEvents(harmflowHome(layout.home).eventsFile(result.id));
  const sandbox = await sandboxVerdict(records);
  if (sandbox.problem !== undefined) problems.push(sandbox.problem);
  const refusals = records.filter(
    (record) => record.type === 'gate.denied' && record.harness === 'codex' && record.data.gate === 'nothing-twice',
  );
  if (refusals.length !== 1)
    problems.push(`the nothing-twice gate refused ${refusals.length} calls of codex instead of 1`);
  const tests = await runCommand(process.execPath, ['--test'], { cwd: result.worktree, timeoutMs: 60_000 });
  if (tests.exitCode !== 0) problems.push('the tests fail in the worktree');
  const pass = /# pass (\d+)/.exec(tests.stdout)?.[1];

  if (problems.length > 0) return { ok: false, text: problems.join('; ') };
  return {
    ok: true,
    text:
      `one execution (${result.id}), 2 attempts: claude-code ran out of quota, codex finished from the handoff; ` +
      `${subjects.length} commits each made once, branch pushed, 1 pull request (the nothing-twice gate refused ` +
      `codex's second), tests pass (${pass ?? '?'} passed); ${sandbox.text}.`,
  };
}

/**
 * Whether act 1's attempts ran in the OS sandbox: where bubblewrap works here each must have, and
 * where it does not the verdict says so, with why, instead of failing a machine without it.
 */
async function sandboxVerdict(records: readonly EventRecord[]): Promise<{ text: string; problem?: string }> {
  const flags = records.flatMap((record) => (record.type === 'attempt.started' ? [record.data.sandboxed] : []));
  const probe = await probeSandbox(process.env.PATH ?? '');
  if (!probe.available) return { text: `WITHOUT the OS sandbox (${probe.reason}): the gates alone held` };
  const outside = flags.filter((flag) => flag !== true).length;
  if (outside > 0) return { text: '', problem: `${outside} of ${flags.length} attempts ran outside the OS sandbox` };
  return { text: 'every attempt ran in the OS sandbox (bubblewrap)' };
}
