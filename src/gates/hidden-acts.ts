/**
 * The acts the gates check, spotted in text they cannot read as commands: an interpreter's inline
 * code (`python3 -c "os.system('git push -f …')"`), a command line known only at run time, a line
 * nested past the gates' limit. Where the gates cannot see whether a push goes to the base branch or
 * a delete leaves the worktree, the `commands` gate's `hidden-command` rule refuses any mention: the
 * agent can run the command itself, where the gates check it. Spotted: `git push`, opening or merging
 * a pull request (`gh pr create|merge`, `glab mr create|merge`, `hub pull-request`), recursive
 * deletes (`rm -r…`, `shutil.rmtree`, `fs.rmSync(…{recursive})`, `FileUtils.rm_rf`, `rimraf`,
 * `Remove-Item -Recurse`, …) and a download piped to an interpreter. Pure.
 */

/** Each act: how it shows in code or a command line, and the words that name it in a refusal. */
const ACTS: readonly (readonly [RegExp, (match: RegExpExecArray) => string])[] = [
  [/\bgit\b[^\n;|&]{0,80}?\bpush\b/, () => 'git push'],
  [/\b(gh|glab)\b\W{1,8}(pr|mr)\b\W{1,8}(create|merge)\b/, (match) => `${match[1]} ${match[2]} ${match[3]}`],
  [/\bhub\b\W{1,8}pull-request\b/, () => 'hub pull-request'],
  [/\brm\b(?:[\s'",]+-[-a-zA-Z]*)*?[\s'",]+(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b/, (match) => `rm ${match[1]}`],
  [/\b(rmtree|rm_rf|rm_r|remove_tree|remove_dir_all|rimraf|deleteRecursively)\b/, (match) => match[1] as string],
  [/\b(rmSync|rmdirSync|rm|rmdir)\s*\([^)]*\brecursive\b/, (match) => `${match[1]}(…, recursive)`],
  [/\bRemove-Item\b[^\n]*-Recurse\b/i, () => 'Remove-Item -Recurse'],
  [
    /\b(curl|wget)\b[^\n]*\|\s*(?:sudo\s+)?(sh|bash|zsh|dash|python[\d.]*|node|perl|ruby)\b/,
    (match) => `${match[1]} … | ${match[2]}`,
  ],
];

/** The commands a name known only at run time might be, for `anyName` text. */
const GUESSED_NAMES = ['git', 'rm', 'gh', 'glab', 'hub'] as const;

/**
 * The first act `text` mentions, in the words a refusal names it with; undefined when none.
 * `anyName`: `text` is the arguments of a command whose name is unknown, tried after each guarded name.
 */
export function mentionedAct(text: string, anyName = false): string | undefined {
  const texts = anyName ? GUESSED_NAMES.map((name) => `${name} ${text}`) : [text];
  for (const candidate of texts) {
    for (const [pattern, name] of ACTS) {
      const match = pattern.exec(candidate);
      if (match) return name(match);
    }
  }
  return undefined;
}
