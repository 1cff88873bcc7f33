/**
 * Failed operations end to end, with the REAL harness CLIs (through the loopback model-API
 * simulator) run by the real engine: in one turn the first link's CLI pushes to a remote that does
 * not exist (git exits 128), commits with nothing to commit (1), runs `gh pr create` without the
 * title and body gh needs when not interactive (the fake forge's gh, 1), writes a failing test and
 * runs it (`node --test`, 1) — then its provider says it is out of quota. The record must say each
 * failed, with its exit code (recorded by the gates from the hook for claude-code, gemini and
 * opencode, by the engine from the stream for Codex), context.json must list them as tried, and the
 * second link (the same harness on another account) must be told so in its handoff.
 * The same commands as the `failed-*` fixtures (scripts/record-fixtures.mjs).
 * Runs when HARMFLOW_HARNESS_BIN_DIRS lists the CLIs (real-harnesses.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HarnessName } from '../../src/core/outcome.js';
import { readEvents } from '../../src/events/log.js';
import type { EventRecord } from '../../src/events/schema.js';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { dialectOf } from '../../src/gates/dialects.js';
import type { ReplySpec } from '../../src/simulators/model-api/script.js';
import { GIT_IDENTITY } from '../execution/fixture.js';
import { REAL_PATH, realCliLab, realHarnessesAvailable, realLink } from './real-harnesses.js';

const HARNESSES = ['claude-code', 'codex', 'gemini', 'opencode'] as const satisfies readonly HarnessName[];
const enabled = realHarnessesAvailable(HARNESSES);

/**
 * Two attempts: five tool calls and the quota reply, then one text turn. Measured on a 2-core
 * machine at load 10: 20–48 s for claude-code, codex and gemini; 53–142 s for OpenCode, whose
 * start-up alone took up to 45–55 s there (~5 s unloaded). The execution's deadline (4 minutes) ends a
 * stuck CLI before the test's timeout does, so the engine still cleans up.
 */
const TEST_TIMEOUT_MS = 300_000;

const PUSH = 'git push no-such-remote HEAD';
const COMMIT = 'git commit -m "Add notes"';
const PULL_REQUEST = 'gh pr create --base main';
const TEST = 'node --test failing.test.mjs';
const FAILING_TEST = `import assert from 'node:assert/strict';
import { test } from 'node:test';

test('adds', () => {
  assert.equal(1 + 1, 3);
});
`;

/** What each failing call exits with, on every harness. */
const EXIT_CODES = { push: 128, commit: 1, pull_request: 1, test_run: 1 };

const scripts: Record<string, ReplySpec[]> = {};
for (const harness of HARNESSES) {
  scripts[`${harness}-fail`] = [
    { shell: { command: PUSH } },
    { shell: { command: COMMIT } },
    { shell: { command: PULL_REQUEST } },
    { write: { path: 'failing.test.mjs', content: FAILING_TEST } },
    { shell: { command: TEST } },
    { quota: true },
  ];
  scripts[`${harness}-after`] = ['Done: read the handoff; nothing left to retry.'];
}

const lab = realCliLab(enabled, () => scripts);

/** A link of the real CLI on `script`, with the fake forge's store passed in; Gemini on a pinned model (no router call). */
function link(harness: HarnessName, script: string, account?: string): Record<string, unknown> {
  const base = realLink(lab.api.url, harness, script);
  return {
    ...base,
    ...(harness === 'gemini' && { model: 'gemini-2.5-pro' }),
    ...(account !== undefined && { account }),
    passEnv: [...(base.passEnv as string[]), 'HARMFLOW_FORGE_DIR'],
  };
}

describe.skipIf(!enabled).each(HARNESSES)('the real %s CLI', (harness) => {
  it(
    'records a failed push, commit, pull request and test run as failed with their exit codes, and the handoff says so',
    async () => {
      const task = lab.bench.task({
        prompt: 'Commit, push and open a pull request; run the tests.',
        harness: link(harness, `${harness}-fail`),
        // Another account: the registry keeps the first one out of quota, not this one.
        fallbacks: [link(harness, `${harness}-after`, 'fallback')],
        timeout: '4m',
      });
      const result = await lab.bench.run(task, {
        hostEnv: { ...process.env, ...GIT_IDENTITY, HARMFLOW_FORGE_DIR: lab.bench.forgeDir, PATH: REAL_PATH },
      });

      expect(result.attempts.map((attempt) => [attempt.harness, attempt.outcome])).toEqual([
        [harness, 'quota_exhausted'],
        [harness, 'completed'],
      ]);
      const exit = EXIT_CODES;

      // The record: one `operation` a call, failed, with its exit code — by the gates from the hook
      // where the hook says how a call exited, else by the engine from the stream.
      const records = readEvents(lab.bench.home.eventsFile(result.id));
      const operations = records.filter(
        (record): record is Extract<EventRecord, { type: 'operation' }> =>
          record.type === 'operation' && record.attempt === 1,
      );
      const source = dialectOf(harness).reportsExitStatus ? 'gate' : 'executor';
      const of = (kind: string) => operations.filter((record) => record.data.kind === kind);
      for (const kind of ['push', 'commit', 'pull_request'] as const) {
        expect(of(kind).map((record) => [record.source, record.data])).toEqual([
          [source, expect.objectContaining({ ok: false, exitCode: exit[kind] })],
        ]);
      }
      expect(of('test_run').map((record) => [record.source, record.data])).toEqual([
        [
          source,
          expect.objectContaining({
            command: TEST,
            passed: false,
            exitCode: 1,
            counts: { passed: 0, failed: 1, skipped: 0 },
          }),
        ],
      ]);
      expect(of('push')[0]?.data).toMatchObject({
        command: PUSH,
        error: "fatal: 'no-such-remote' does not appear to be a git repository",
      });
      expect(of('commit')[0]?.data).toMatchObject({ error: expect.stringMatching(/^nothing (?:added )?to commit/) });
      expect(of('pull_request')[0]?.data).toMatchObject({ command: PULL_REQUEST });

      // context.json: the first attempt tried them; nothing of them counts as done.
      const context = ExecutionContext.parse(JSON.parse(readFileSync(result.contextFile, 'utf8')));
      const items = context.attempts[0]?.workItems ?? [];
      const tried = items.flatMap((item) => item.tried ?? []);
      expect(tried.map(({ kind, exitCode, why }) => ({ kind, exitCode, why }))).toEqual([
        { kind: 'push', exitCode: 128, why: 'failed (exit 128)' },
        { kind: 'commit', exitCode: 1, why: 'failed (exit 1)' },
        { kind: 'pull_request', exitCode: exit.pull_request, why: `failed (exit ${exit.pull_request})` },
      ]);
      expect(items.flatMap((item) => item.testRuns ?? [])).toEqual([
        { command: TEST, passed: false, exitCode: 1, counts: { passed: 0, failed: 1, skipped: 0 } },
      ]);
      expect(items.flatMap((item) => [...(item.commits ?? []), ...(item.push ? [item.push] : [])])).toEqual([]);
      expect(items.some((item) => item.pullRequest !== undefined)).toBe(false);

      // The second attempt's prompt says each was tried and failed, with its exit code.
      const started = records.find((record) => record.type === 'attempt.started' && record.attempt === 2);
      const prompt = started?.type === 'attempt.started' ? started.data.prompt : '';
      expect(prompt).toContain(`tried to push (\`${PUSH}\`); it failed (exit 128)`);
      expect(prompt).toContain('tried to commit (`git commit -m "Add notes"`); it failed (exit 1)');
      expect(prompt).toContain(
        `tried to open a pull request (\`${PULL_REQUEST}\`); it failed (exit ${exit.pull_request})`,
      );
      expect(prompt).toContain(`tests \`${TEST}\` failed (exit 1; 0 passed, 1 failed, 0 skipped)`);
      // …and the CLI of the second link was given that prompt.
      const handedOff = lab.api.requests.filter(
        (request) =>
          request.script === `${harness}-after` && request.reply !== 'title' && request.reply !== 'classifier',
      );
      expect(handedOff[0]?.lastUserText).toContain('it failed (exit 128)');
    },
    TEST_TIMEOUT_MS,
  );
});
