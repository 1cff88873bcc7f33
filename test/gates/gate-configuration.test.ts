/**
 * The gate configuration fails closed: a gates file that is missing, unreadable, cut short or not the
 * bytes HarmFlow wrote (the digest on the hook's command line says which bytes those are) makes the
 * runner refuse every `PreToolUse` — a harmless call as well as a harmful one — with one reason the
 * agent reads, and record the refusal (`gate.failed` + `gate.denied`, gate `runner`). After a call and
 * at a stop nothing can be refused: the failure is recorded and the answer is allow.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESS_NAMES } from '../../src/core/outcome.js';
import { GATES_FILE } from '../../src/gates/attempt-file.js';
import { HARMFLOW_BIN } from '../../src/gates/command.js';
import { gateArgsWords } from '../../src/gates/hook-event.js';
import { runGate } from '../../src/gates/runner.js';
import type { HookInstallInput } from '../../src/harnesses/hooks.js';
import { ADAPTERS } from '../../src/harnesses/registry.js';
import { EXECUTION, type GateAttempt, gateAttemptPerTest, postBash, preBash } from './attempt.js';

const open = gateAttemptPerTest();

const MISSING = "HarmFlow's gate configuration is missing: every tool call is refused until the attempt ends.";
const ALTERED = "HarmFlow's gate configuration is altered: every tool call is refused until the attempt ends.";

const CALLS = [
  ['harmless', 'ls'],
  ['harmful', 'git push --force origin HEAD:main'],
] as const;

/** The runner's command-line arguments for `at`: the harness, and the SHA-256 of its gates file's bytes, computed here. */
function sealOf(at: GateAttempt) {
  const sha256 = createHash('sha256')
    .update(readFileSync(join(at.attemptDir, GATES_FILE)))
    .digest('hex');
  return { harness: 'claude-code', sha256 };
}

const denyReason = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } })
    .hookSpecificOutput;

/** Ways the gates file of an attempt is lost or changed after HarmFlow wrote it; each with the reason the agent reads. */
const TAMPERING: readonly [name: string, reason: string, tamper: (path: string) => void][] = [
  ['deleted', MISSING, (path) => rmSync(path, { force: true })],
  ['unreadable (a directory in its place)', MISSING, (path) => replace(path, () => mkdirSync(path))],
  [
    'truncated',
    ALTERED,
    (path) => {
      const bytes = readFileSync(path);
      replace(path, () => writeFileSync(path, bytes.subarray(0, bytes.length >> 1)));
    },
  ],
  [
    'one byte changed',
    ALTERED,
    (path) => {
      const text = readFileSync(path, 'utf8');
      replace(path, () => writeFileSync(path, text.replace('"baseBranch": "main"', '"baseBranch": "maim"')));
    },
  ],
  [
    'a rule removed (the commands gate turned off)',
    ALTERED,
    (path) => {
      const gates = JSON.parse(readFileSync(path, 'utf8')) as { settings: Record<string, unknown> };
      gates.settings.commands = false;
      gates.settings.nothingTwice = false;
      replace(path, () => writeFileSync(path, `${JSON.stringify(gates, null, 2)}\n`));
    },
  ],
];

/** Removes `path` (read-only, as HarmFlow writes it; the agent's shell can remove it all the same) and makes it anew. */
function replace(path: string, make: () => void): void {
  rmSync(path, { force: true });
  make();
}

describe('the gates file HarmFlow writes', () => {
  it('is read-only, and the engine keeps the SHA-256 of its bytes for the hooks’ command line', () => {
    const at = open();
    expect(statSync(join(at.attemptDir, GATES_FILE)).mode & 0o777).toBe(0o400);
    expect(at.args).toStrictEqual(sealOf(at));
  });
});

describe('runGate: a gates file that is not the one HarmFlow wrote', () => {
  for (const [name, reason, tamper] of TAMPERING) {
    for (const [kind, command] of CALLS) {
      it(`${name}: refuses a ${kind} call with one reason and records gate.failed + gate.denied`, async () => {
        const at = open();
        const args = sealOf(at);
        tamper(join(at.attemptDir, GATES_FILE));
        const reply = await runGate({
          event: 'PreToolUse',
          stdin: preBash(command, at.worktree, 'toolu_x'),
          env: at.env,
          args,
        });
        expect(reply.exitCode).toBe(0);
        expect(denyReason(reply.stdout)).toStrictEqual({
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: reason,
        });
        expect(at.records()).toMatchObject([
          {
            execution: EXECUTION,
            attempt: 1,
            harness: 'claude-code',
            source: 'gate',
            type: 'gate.failed',
            data: { gate: 'runner', event: 'PreToolUse', decision: 'deny', tool: 'Bash', toolId: 'toolu_x' },
          },
          {
            harness: 'claude-code',
            source: 'gate',
            type: 'gate.denied',
            data: { gate: 'runner', tool: 'Bash', toolId: 'toolu_x', message: reason },
          },
        ]);
        expect(at.records()).toHaveLength(2);
      });
    }
  }

  it('says in gate.failed what is wrong with the file', async () => {
    const deleted = open();
    const args = sealOf(deleted);
    rmSync(join(deleted.attemptDir, GATES_FILE));
    await runGate({ event: 'PreToolUse', stdin: preBash('ls', deleted.worktree), env: deleted.env, args });
    expect(deleted.records()[0]?.data).toMatchObject({ error: expect.stringMatching(/gates\.json.*ENOENT/) });
    deleted.cleanup();

    const altered = open();
    const sealed = sealOf(altered);
    TAMPERING[4]?.[2](join(altered.attemptDir, GATES_FILE));
    await runGate({ event: 'PreToolUse', stdin: preBash('ls', altered.worktree), env: altered.env, args: sealed });
    expect(altered.records()[0]?.data).toMatchObject({
      error: expect.stringContaining(`not the file HarmFlow wrote (SHA-256 ${sealed.sha256})`),
    });
  });
});

describe('runGate: a hook command that does not vouch for the gates file', () => {
  it('without the digest, refuses every call as a missing configuration', async () => {
    const at = open();
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: preBash('ls', at.worktree),
      env: at.env,
      args: { harness: 'claude-code' },
    });
    expect(denyReason(reply.stdout).permissionDecisionReason).toBe(MISSING);
    expect(at.records().map((record) => record.type)).toEqual(['gate.failed', 'gate.denied']);
  });

  it('with a digest of other bytes, refuses every call as an altered configuration', async () => {
    const at = open();
    const reply = await runGate({
      event: 'PreToolUse',
      stdin: preBash('ls', at.worktree),
      env: at.env,
      args: { harness: 'claude-code', sha256: '0'.repeat(64) },
    });
    expect(denyReason(reply.stdout).permissionDecisionReason).toBe(ALTERED);
  });

  it('without HARMFLOW_GATE_DIR, refuses the call and says why on stderr (there is no log to write to)', async () => {
    const at = open();
    const { HARMFLOW_GATE_DIR: _, ...env } = at.env;
    const reply = await runGate({ event: 'PreToolUse', stdin: preBash('ls', at.worktree), env, args: sealOf(at) });
    expect(denyReason(reply.stdout).permissionDecisionReason).toBe(MISSING);
    expect(reply.stderr).toMatch(/HARMFLOW_GATE_DIR is not set/);
  });

  it('without the harness either, refuses with exit 2 and the reason on stderr, which every harness reads as a deny', async () => {
    const at = open();
    rmSync(join(at.attemptDir, GATES_FILE));
    const reply = await runGate({ event: 'PreToolUse', stdin: preBash('ls', at.worktree), env: at.env, args: {} });
    expect(reply).toStrictEqual({ stdout: '', exitCode: 2, stderr: MISSING });
    expect(at.records()).toMatchObject([{ type: 'gate.failed', data: { gate: 'runner', decision: 'deny' } }]);
    expect(at.records()[0]?.harness).toBeUndefined();
  });
});

describe('runGate: a broken configuration after a call and at a stop', () => {
  it('records the failure and allows: nothing can be refused there, and nothing is recorded from the file', async () => {
    const at = open();
    const args = sealOf(at);
    rmSync(join(at.attemptDir, GATES_FILE));
    const post = await runGate({
      event: 'PostToolUse',
      stdin: postBash('git commit -m x', '[b 1a2b3c4] x', at.worktree, 'toolu_post'),
      env: at.env,
      args,
    });
    const stop = await runGate({
      event: 'Stop',
      stdin: JSON.stringify({ session_id: 's1', cwd: at.worktree, hook_event_name: 'Stop' }),
      env: at.env,
      args,
    });
    expect([post, stop]).toStrictEqual([
      { stdout: '', exitCode: 0 },
      { stdout: '', exitCode: 0 },
    ]);
    expect(at.records()).toMatchObject([
      { type: 'gate.failed', data: { gate: 'runner', event: 'PostToolUse', decision: 'allow', toolId: 'toolu_post' } },
      { type: 'gate.failed', data: { gate: 'runner', event: 'Stop', decision: 'allow' } },
    ]);
    expect(at.records()).toHaveLength(2);
  });
});

describe('the hooks HarmFlow installs', () => {
  it("give the runner the harness and the gates file's SHA-256 the engine passes them, for every harness", () => {
    const at = open();
    const input: HookInstallInput = {
      shellCommand: (event) => `harmflow gate ${event}`,
      argv: (event) => ['harmflow', 'gate', event],
      homeDir: join(at.attemptDir, 'home'),
      env: { HARMFLOW_GATE_DIR: at.attemptDir },
      gatesSha256: sealOf(at).sha256,
    };
    for (const harness of HARNESS_NAMES) {
      const adapter = ADAPTERS[harness];
      const spec = adapter.command({
        prompt: 'p',
        cwd: at.worktree,
        homeDir: input.homeDir,
        path: '/usr/bin:/bin',
        extraArgs: [],
        env: {},
      });
      const files = Object.values(adapter.hooks?.install(spec, input).files ?? {}).join('\n');
      const words = gateArgsWords({ harness, sha256: sealOf(at).sha256 });
      const written = harness === 'opencode' ? JSON.stringify(words).slice(1, -1) : words.join(' ');
      expect(files, harness).toContain(`PreToolUse${harness === 'opencode' ? '",' : ' '}${written}`);
    }
  });
});

describe('harmflow gate (the process) with a broken configuration', () => {
  const gate = (words: readonly string[], stdin: string, env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [HARMFLOW_BIN, 'gate', ...words], { input: stdin, env, encoding: 'utf8' });

  it('refuses the call on the command line the hooks run, once gates.json is removed', () => {
    const at = open();
    const words = ['PreToolUse', ...gateArgsWords(at.args)];
    rmSync(join(at.attemptDir, GATES_FILE));
    const run = gate(words, preBash('git push --force origin HEAD:main', at.worktree), at.env);
    expect(run.status).toBe(0);
    expect(denyReason(run.stdout).permissionDecisionReason).toBe(MISSING);
  });

  it('refuses with exit 2 and the reason on stderr when the command line gives neither harness nor digest', () => {
    const at = open();
    const run = gate(['PreToolUse'], preBash('ls', at.worktree), at.env);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe(MISSING);
  });
});
