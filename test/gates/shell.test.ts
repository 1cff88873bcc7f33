import { describe, expect, it } from 'vitest';
import { runCommands } from '../../src/gates/command-line.js';
import { gitCommand, writtenFiles } from '../../src/gates/file-writes.js';
import { gitPush } from '../../src/gates/git-push.js';
import { wordPath } from '../../src/gates/paths.js';
import { type ShellWord, shellCommands } from '../../src/gates/shell.js';

const values = (words: readonly ShellWord[]) => words.map((word) => word.value);
const commands = (line: string) => shellCommands(line).map((command) => values(command.words));

describe('shellCommands', () => {
  it('splits at && || ; | & and newlines, keeping quoted operators inside their word', () => {
    expect(commands(`a 'x && y' && b "p | q" || c; d | e & f\ng`)).toStrictEqual([
      ['a', 'x && y'],
      ['b', 'p | q'],
      ['c'],
      ['d'],
      ['e'],
      ['f'],
      ['g'],
    ]);
    expect(shellCommands('a | b && c').map((command) => command.after)).toStrictEqual([undefined, '|', '&&']);
  });

  it('removes quotes and applies escapes, keeping paths with spaces as one word', () => {
    expect(commands(`rm -f "my file.txt" 'it''s' a\\ b "say \\"hi\\""`)).toStrictEqual([
      ['rm', '-f', 'my file.txt', 'its', 'a b', 'say "hi"'],
    ]);
  });

  it('reads redirections, telling file writes from descriptor copies and reads', () => {
    const [command] = shellCommands('cmd >out.txt 2>&1 >> "log file" <in.txt &> all 2>err >&-');
    expect(values(command?.words ?? [])).toStrictEqual(['cmd']);
    expect(command?.redirections.map((r) => [r.op, r.writes, r.target.value])).toStrictEqual([
      ['>', true, 'out.txt'],
      ['>>', true, 'log file'],
      ['<', false, 'in.txt'],
      ['&>', true, 'all'],
      ['>', true, 'err'],
    ]);
  });

  it('skips here-document bodies, so text written with cat <<EOF is never read as commands', () => {
    const line = "cat > notes.md <<'EOF'\nrm -rf /\ncurl https://x | sh\nEOF\necho done";
    expect(commands(line)).toStrictEqual([['cat'], ['echo', 'done']]);
    expect(shellCommands(line)[0]?.redirections[0]?.target.value).toBe('notes.md');
    expect(commands('cat <<-END\n\trm -rf /\n\tEND\nls')).toStrictEqual([['cat'], ['ls']]);
  });

  it('marks expansions and substitutions, without splitting the commands inside them', () => {
    const [command] = shellCommands('cp "$SRC" $(mktemp -d)/x `pwd` <(curl -s u) ~/a *.ts "*.md"');
    expect(command?.words.map((word) => [word.value, word.expands, word.glob, word.tilde])).toStrictEqual([
      ['cp', false, false, false],
      ['$SRC', true, false, false],
      ['$(mktemp -d)/x', true, false, false],
      ['`pwd`', true, false, false],
      ['<(curl -s u)', true, false, false],
      ['~/a', false, false, true],
      ['*.ts', false, true, false],
      ['*.md', false, false, false],
    ]);
  });

  it('keeps subshell depth, ignores comments, and never throws on an unterminated quote', () => {
    expect(shellCommands('(cd /x && ls) && pwd # rm -rf /').map((c) => [values(c.words), c.depth])).toStrictEqual([
      [['cd', '/x'], 1],
      [['ls'], 1],
      [['pwd'], 0],
    ]);
    expect(commands(`echo "unterminated && rm -rf /`)).toStrictEqual([['echo', 'unterminated && rm -rf /']]);
  });

  it('drops keywords, assignments and wrappers before the command name', () => {
    const line = runCommands('if true; then CI=1 sudo -u root env -i A=b nohup rm -rf x; fi', '/wt', undefined);
    expect(line.map((command) => values(command.words))).toStrictEqual([['true'], ['rm', '-rf', 'x'], []]);
  });
});

describe('runCommands', () => {
  it('follows cd, and ends a subshell’s cd with the subshell', () => {
    const line = 'cd /tmp && rm -rf x; (cd /opt && ls); pwd; cd sub && make';
    expect(runCommands(line, '/wt', '/home/a').map((c) => [c.name, c.cwd])).toStrictEqual([
      ['cd', '/wt'],
      ['rm', '/tmp'],
      ['cd', '/tmp'],
      ['ls', '/opt'],
      ['pwd', '/tmp'],
      ['cd', '/tmp'],
      ['make', '/tmp/sub'],
    ]);
  });

  it('loses the directory after a cd it cannot resolve, and reads ~ and bare cd as home', () => {
    expect(runCommands('cd "$DIR" && rm x', '/wt', '/home/a').map((c) => c.cwd)).toStrictEqual(['/wt', undefined]);
    expect(runCommands('cd && ls; cd ~/p && ls', '/wt', '/home/a').map((c) => c.cwd)).toStrictEqual([
      '/wt',
      '/home/a',
      '/home/a',
      '/home/a/p',
    ]);
  });

  it('reads the command string of sh -c / bash -lc / eval as commands, in the same directory', () => {
    expect(
      runCommands(`cd /opt && bash -lc 'rm -rf build && echo ok'`, '/wt', undefined).map((c) => [c.name, c.cwd]),
    ).toStrictEqual([
      ['cd', '/wt'],
      ['bash', '/opt'],
      ['rm', '/opt'],
      ['echo', '/opt'],
    ]);
    expect(runCommands(`eval "git push -f origin main"`, '/wt', undefined).map((c) => c.text)).toStrictEqual([
      'eval "git push -f origin main"',
      'git push -f origin main',
    ]);
  });
});

describe('writtenFiles', () => {
  const written = (line: string) => values(writtenFiles(shellCommands(line)[0]?.words ?? []));

  it.each([
    ['rm -rf a "b c"', ['a', 'b c']],
    ['mv -f a b dest', ['a', 'b', 'dest']],
    ['mv -t /dest a', ['/dest', 'a']],
    ['cp -r src /backup/src', ['/backup/src']],
    ['cp --target-directory=/out a b', ['/out']],
    ['cp onlyone', []],
    ['ln -s target link', ['link']],
    ['touch -d yesterday f', ['f']],
    ['mkdir -p -m 755 a/b', ['a/b']],
    ['tee -a log.txt', ['log.txt']],
    ['chmod +x run.sh', ['run.sh']],
    ['dd if=/dev/zero of=/disk.img bs=1M', ['/disk.img']],
    ["sed -i 's/a/b/' f.txt", ['f.txt']],
    ["sed -e 's/a/b/' -i f.txt g.txt", ['f.txt', 'g.txt']],
    ["sed 's/a/b/' f.txt", []],
    ['sort -o sorted.txt in.txt', ['sorted.txt']],
    ['find /var/cache -name "*.tmp" -delete', ['/var/cache']],
    ['find . -name x', []],
    ['curl -sSL -o /usr/local/bin/tool https://x', ['/usr/local/bin/tool']],
    ['wget -O - https://x', []],
    ['rsync -a src/ host:/backup/', []],
    ['rsync -a src/ /backup/', ['/backup/']],
    ['git clone --depth 1 https://x/r.git ../r', ['../r']],
    ['git -C /other worktree add ../wt2 -b b2', ['../wt2']],
    ['git commit -am x', []],
    ['ls -la', []],
  ])('%s writes %j', (line, expected) => {
    expect(written(line)).toStrictEqual(expected);
  });
});

describe('gitPush', () => {
  const push = (line: string, current = 'feature') => {
    const git = gitCommand(shellCommands(line)[0]?.words ?? []);
    return git && gitPush(git, current);
  };

  it.each([
    ['git push', undefined, [{ branch: 'feature', rewrites: false, deletes: false }]],
    ['git push -u origin HEAD', 'origin', [{ branch: 'feature', rewrites: false, deletes: false }]],
    ['git push origin +main', 'origin', [{ branch: 'main', rewrites: true, deletes: false }]],
    ['git push -f origin HEAD:refs/heads/main', 'origin', [{ branch: 'main', rewrites: true, deletes: false }]],
    ['git push -uf origin x', 'origin', [{ branch: 'x', rewrites: true, deletes: false }]],
    [
      'git push --force-with-lease=main:abc origin main',
      'origin',
      [{ branch: 'main', rewrites: true, deletes: false }],
    ],
    ['git push origin :main', 'origin', [{ branch: 'main', rewrites: false, deletes: true }]],
    ['git push origin --delete old', 'origin', [{ branch: 'old', rewrites: false, deletes: true }]],
    ['git push --mirror backup', 'backup', [{ branch: '*', rewrites: true, deletes: true }]],
    ['git push origin --all', 'origin', [{ branch: '*', rewrites: false, deletes: false }]],
    ['git push origin v1.0 refs/tags/v2', 'origin', [{ branch: 'v1.0', rewrites: false, deletes: false }]],
    ['git push --tags', undefined, []],
    ['git -C ../other push -o ci.skip origin a:b', 'origin', [{ branch: 'b', rewrites: false, deletes: false }]],
  ])('%s → remote %s, %j', (line, remote, targets) => {
    const read = push(line);
    expect(read?.remote).toBe(remote);
    expect(read?.targets).toStrictEqual(targets);
  });

  it('sees a dry run, and is undefined for other git commands', () => {
    expect(push('git push -n --force origin main')?.dryRun).toBe(true);
    expect(push('git pull origin main')).toBeUndefined();
  });
});

describe('wordPath', () => {
  const word = (value: string, extra: Partial<ShellWord> = {}): ShellWord => ({
    value,
    expands: false,
    glob: false,
    tilde: false,
    ...extra,
  });

  it('resolves .. and relative paths against the directory, and reads ~ and $HOME', () => {
    expect(wordPath(word('../x'), '/wt/src', '/h')).toStrictEqual({ path: '/wt/x', within: false });
    expect(wordPath(word('~/x', { tilde: true }), '/wt', '/h')).toStrictEqual({ path: '/h/x', within: false });
    expect(wordPath(word('$HOME/x', { expands: true }), '/wt', '/h')).toStrictEqual({ path: '/h/x', within: false });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell word, not a template
    expect(wordPath(word('${HOME}', { expands: true }), '/wt', '/h')).toStrictEqual({ path: '/h', within: false });
  });

  it('names the directory a glob lists, and gives up on what only run time knows', () => {
    expect(wordPath(word('/*', { glob: true }), '/wt', '/h')).toStrictEqual({ path: '/', within: true });
    expect(wordPath(word('*', { glob: true }), '/wt', '/h')).toStrictEqual({ path: '/wt', within: true });
    expect(wordPath(word('$OUT/x', { expands: true }), '/wt', '/h')).toBeUndefined();
    expect(wordPath(word('$HOME/$X', { expands: true }), '/wt', '/h')).toBeUndefined();
    expect(wordPath(word('~bob/x', { tilde: true }), '/wt', '/h')).toBeUndefined();
    expect(wordPath(word('~/x', { tilde: true }), '/wt', undefined)).toBeUndefined();
    expect(wordPath(word('rel'), undefined, '/h')).toBeUndefined();
  });
});
