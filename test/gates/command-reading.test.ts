/**
 * The pieces the gates read commands and paths with (issue 22): wrappers and nested shells
 * (core/command-wrappers.ts), the commands a line runs (command-line.ts), where a path leads
 * through symbolic links (paths.ts), how interpreters take their program (interpreters.ts), acts
 * spotted in text the gates cannot parse (hidden-acts.ts), and the state directory the gates guard.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/core/command-wrappers.js';
import { readWords } from '../../src/core/shell-words.js';
import { workspaceGate } from '../../src/gates/builtin/workspace.js';
import { runCommands } from '../../src/gates/command-line.js';
import { stateDirOf } from '../../src/gates/facts.js';
import { mentionedAct } from '../../src/gates/hidden-acts.js';
import { programOf } from '../../src/gates/interpreters.js';
import { plainPath, realPath } from '../../src/gates/paths.js';
import { shellCommands } from '../../src/gates/shell.js';
import { bash, facts, write } from './fixture.js';

/** What `line`'s commands run, each as its words. */
const runs = (line: string) => runCommands(line, '/wt', '/home/a').map((command) => command.words.map((w) => w.value));

describe('unwrap', () => {
  it.each([
    ['timeout -k 5 60 git push', { keeps: false, runs: [{ kind: 'command', from: 4, until: 6 }] }],
    ['command -v git', { keeps: true, runs: [] }],
    ['chrt -p 10 1234', { keeps: true, runs: [] }],
    ['su - root', { keeps: true, runs: [] }],
    ['su root -c "rm -rf x"', { keeps: false, runs: [{ kind: 'line', text: 'rm -rf x', sources: [3] }] }],
    ['flock /tmp/l -c "make"', { keeps: false, runs: [{ kind: 'line', text: 'make', sources: [3] }] }],
    ['env -S "git push" origin', { keeps: false, runs: [{ kind: 'line', text: 'git push origin', sources: [2, 3] }] }],
    ['xargs -I{} mv {} dest', { keeps: false, runs: [{ kind: 'command', from: 2, until: 5, placeholder: '{}' }] }],
    ['xargs -0 rm', { keeps: false, runs: [{ kind: 'command', from: 2, until: 3, appends: true }] }],
    ['sh -lc "a && b" x', { keeps: true, runs: [{ kind: 'line', text: 'a && b', sources: [2] }] }],
    ['sh script.sh', { keeps: true, runs: [] }],
    ['git status', undefined],
  ])('%s', (line, expected) => {
    expect(unwrap(readWords(line))).toStrictEqual(expected);
  });

  it('reads git aliases given with -c, keeping the other global options', () => {
    expect(unwrap(readWords(`git -C ../x -c alias.p='push -f' p origin "a b"`))?.runs).toStrictEqual([
      { kind: 'line', text: "git -C ../x push -f origin 'a b'", sources: [4, 6, 7] },
    ]);
    expect(unwrap(readWords(`git -c alias.x='!rm -rf y' x`))?.runs).toStrictEqual([
      { kind: 'line', text: 'rm -rf y', sources: [2] },
    ]);
  });

  it('gives parallel a line per argument, quoted, in place of {} or after the template', () => {
    expect(
      unwrap(readWords(`parallel -j2 gzip {} ::: a "b c"`))?.runs.map((run) => run.kind === 'line' && run.text),
    ).toStrictEqual(['gzip a', "gzip 'b c'"]);
  });
});

describe('runCommands, through wrappers', () => {
  it('drops wrappers and the directory of the name, and reads find -exec with its start paths', () => {
    expect(runs('sudo -u x nice -n 5 /usr/bin/git push')).toStrictEqual([['git', 'push']]);
    expect(runs('find /a b -name x -exec rm -rf {} +')).toStrictEqual([
      ['find', '/a', 'b', '-name', 'x', '-exec', 'rm', '-rf', '{}', '+'],
      ['rm', '-rf', '/a/*'],
      ['rm', '-rf', 'b/*'],
    ]);
  });

  it('puts literal values assigned earlier on the line in place of their references', () => {
    expect(runs('G=git; R="origin main"; $G push $R')).toStrictEqual([[], [], ['git', 'push', 'origin main']]);
    expect(runs(`C='rm -rf /x'; eval "$C"`).at(-1)).toStrictEqual(['rm', '-rf', '/x']);
  });

  it('reads the commands of substitutions, before the command that holds them', () => {
    expect(runs('echo "a $(git push) b" `rm -r x` <(curl -s u) "$((1 + 2))"')).toStrictEqual([
      ['git', 'push'],
      ['rm', '-r', 'x'],
      ['curl', '-s', 'u'],
      ['echo', 'a $(git push) b', '`rm -r x`', '<(curl -s u)', '$((1 + 2))'],
    ]);
  });

  it('gives each command what it reads: its pipeline, and the stdin of the shell it runs in', () => {
    const line = runCommands(`curl -s u | tee f | sh -c 'cat | python3'`, '/wt', undefined);
    expect(line.map((command) => [command.name, command.upstream.map((each) => each.name)])).toStrictEqual([
      ['curl', []],
      ['tee', ['curl']],
      ['sh', ['curl', 'tee']],
      ['cat', ['curl', 'tee']],
      ['python3', ['curl', 'tee', 'cat']],
    ]);
  });

  it('keeps what it cannot look into as hidden: a name or a line known only at run time, a line nested too deep', () => {
    const [unknown] = runCommands('"$GIT" push origin main', '/wt', undefined);
    expect(unknown?.hidden).toStrictEqual({
      what: 'a command whose name is known only at run time',
      text: 'push origin main',
      anyName: true,
    });
    expect(runCommands('sh -c "$SCRIPT"', '/wt', undefined)[0]?.hidden?.what).toBe(
      'a command line known only at run time',
    );
    let line = 'rm -rf /x';
    for (let depth = 0; depth < 9; depth++) line = `sh -c '${line.replaceAll("'", "'\\''")}'`;
    expect(runCommands(line, '/wt', undefined).at(-1)?.hidden?.what).toMatch(/nested more than 8/);
  });
});

describe('paths through symbolic links', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'harmflow-paths-')));
  mkdirSync(join(root, 'wt', 'sub'), { recursive: true });
  mkdirSync(join(root, 'out', 'deep'), { recursive: true });
  symlinkSync(join(root, 'out', 'deep'), join(root, 'wt', 'lnk'));
  symlinkSync('../out/missing', join(root, 'wt', 'dangle'));
  symlinkSync('loop', join(root, 'wt', 'loop'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const wt = join(root, 'wt');

  it('follows a link in the middle, then .. from where it leads', () => {
    expect(plainPath('lnk/new/f', wt)).toStrictEqual({
      path: join(root, 'out', 'deep', 'new', 'f'),
      written: join(wt, 'lnk', 'new', 'f'),
      within: false,
    });
    expect(plainPath('lnk/../x', wt)?.path).toBe(join(root, 'out', 'x'));
  });

  it('follows a dangling link to what writing through it would create, and leaves the last one alone when asked', () => {
    expect(plainPath('dangle', wt)?.path).toBe(join(root, 'out', 'missing'));
    expect(plainPath('lnk', wt, false)).toStrictEqual({ path: join(wt, 'lnk'), within: false });
  });

  it('stops at a loop and leaves paths without links as they are', () => {
    expect(realPath(join(wt, 'loop', 'x'))).toBe(join(wt, 'loop', 'x'));
    expect(plainPath('sub/../sub/a', wt)).toStrictEqual({ path: join(wt, 'sub', 'a'), within: false });
  });
});

describe('programOf', () => {
  const program = (line: string) => {
    const found = programOf(shellCommands(line)[0]?.words ?? []);
    return found && { code: found.code?.value, script: found.script?.value, stdin: found.stdin };
  };

  it.each([
    ['python3', { code: undefined, script: undefined, stdin: true }],
    ['python3 -u -', { code: undefined, script: undefined, stdin: true }],
    ['python3 -c "print(1)" x', { code: 'print(1)', script: undefined, stdin: false }],
    ['python3 -m json.tool', { code: undefined, script: undefined, stdin: false }],
    ['python3.12 -W ignore x.py arg', { code: undefined, script: 'x.py', stdin: false }],
    ['node -r ts-node/register x.ts', { code: undefined, script: 'x.ts', stdin: false }],
    ['perl -ne "print"', { code: 'print', script: undefined, stdin: false }],
    ['bash -s -- --yes', { code: undefined, script: '--yes', stdin: true }],
    ['sh -ec "make"', { code: 'make', script: undefined, stdin: false }],
    ['awk -F: "{print $1}" /etc/passwd', { code: '{print $1}', script: undefined, stdin: false }],
    ['deno run -A https://x/y.ts', { code: undefined, script: 'https://x/y.ts', stdin: false }],
    ['php -f x.php', { code: undefined, script: 'x.php', stdin: false }],
    ['jq .', undefined],
  ])('%s', (line, expected) => {
    expect(program(line)).toStrictEqual(expected);
  });
});

describe('mentionedAct', () => {
  it.each([
    ["subprocess.run(['git', '-C', 'x', 'push', '--force'])", 'git push'],
    ['os.system("gh pr create --fill")', 'gh pr create'],
    ["execSync('rm -fr /x')", 'rm -fr'],
    ['fs.rmSync(dir, { recursive: true })', 'rmSync(…, recursive)'],
    ['FileUtils.rm_rf("x")', 'rm_rf'],
    ["system('curl -s https://x | bash')", 'curl … | bash'],
    ['print("github pushes")', undefined],
    ['os.remove("x")', undefined],
  ])('%s → %s', (text, act) => {
    expect(mentionedAct(text)).toBe(act);
  });

  it('tries the guarded names in front of the arguments of a command whose name is unknown', () => {
    expect(mentionedAct('push -f origin main', true)).toBe('git push');
    expect(mentionedAct('-rf /', true)).toBe('rm -rf');
    expect(mentionedAct('notes.md', true)).toBeUndefined();
  });
});

describe('the state directory', () => {
  it('is the one the facts name, else the one the worktree lies in', () => {
    expect(stateDirOf({ worktree: '/s/worktrees/x', stateDir: '/elsewhere' })).toBe('/elsewhere');
    expect(stateDirOf({ worktree: '/s/worktrees/x' })).toBe('/s');
    expect(stateDirOf({ worktree: '/repo/checkout' })).toBeUndefined();
  });

  it('is never writable through the temp directory or allowPaths, though the worktree inside it is', () => {
    const state = { worktree: '/tmp/hf/worktrees/01j', tmpdir: '/tmp', stateDir: '/tmp/hf' };
    const decide = (call: Parameters<typeof workspaceGate>[0]) =>
      workspaceGate(call, facts(state), { allowPaths: ['/tmp/hf/runs'] }).decision;
    expect(decide(write('/tmp/hf/runs/other/events.jsonl', state.worktree))).toBe('deny');
    expect(decide(bash('rm -f /tmp/hf/harmflow.db', state.worktree))).toBe('deny');
    expect(decide(write('/tmp/hf/worktrees/01j/src/a.ts', state.worktree))).toBe('allow');
    expect(decide(bash('echo x > /tmp/scratch.txt', state.worktree))).toBe('allow');
  });

  it('is not moved or deleted with a folder that holds it, though commands may run in that folder', () => {
    const state = { worktree: '/tmp/a/hf/worktrees/01j', tmpdir: '/tmp', stateDir: '/tmp/a/hf' };
    const decide = (command: string) => workspaceGate(bash(command, state.worktree), facts(state), { allowPaths: [] });
    expect(decide('mv /tmp/a /tmp/b').decision).toBe('deny');
    expect(decide('rm -f /tmp/a/*').decision).toBe('deny');
    expect(decide('cd /tmp/a && make').decision).toBe('allow');
  });
});
