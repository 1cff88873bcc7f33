/**
 * What a `git push` command line would do to which remote branches: which branches it updates,
 * whether it may rewrite them (`--force`, `-f`, `--force-with-lease`, a `+refspec`, `--mirror`) and
 * whether it deletes them (`--delete`, `:branch`). Read from the words alone: a bare `git push`
 * is taken to push the current branch to its namesake (git's default `push.default=simple`), and
 * the current branch is taken to be the execution's. Pure.
 */
import { type GitCommand, hasOption, optionValue, parseArgs } from './file-writes.js';

/** A remote branch a push updates; `*` stands for every branch (`--all`, `--mirror`, a pattern). */
export interface PushTarget {
  readonly branch: string;
  /** The push may replace the branch with history that does not contain it. */
  readonly rewrites: boolean;
  readonly deletes: boolean;
}

export interface GitPush {
  /** The remote as written (a name or URL); absent for git's default remote. */
  readonly remote?: string;
  readonly targets: readonly PushTarget[];
  /** `--dry-run`/`-n`: nothing is pushed. */
  readonly dryRun: boolean;
  /** The options that make it rewrite, as written, for messages. */
  readonly forceOptions: readonly string[];
}

const PUSH_VALUED: ReadonlySet<string> = new Set(['-o', '--push-option', '--repo', '--receive-pack', '--exec']);

const FORCE_OPTIONS = ['-f', '--force', '--force-with-lease'];

/** Reads a `git push`; undefined for any other git command. `currentBranch` is what a bare push pushes. */
export function gitPush(git: GitCommand, currentBranch: string): GitPush | undefined {
  if (git.verb !== 'push') return undefined;
  const args = parseArgs(git.args, PUSH_VALUED);
  const forceOptions = args.options
    .filter((option) => FORCE_OPTIONS.includes(option.name))
    .map((option) => option.name);
  const mirror = hasOption(args, '--mirror');
  const force = forceOptions.length > 0 || mirror;
  const deletes = hasOption(args, '-d', '--delete');
  const [remoteWord, ...refspecs] = args.operands;
  const remote = remoteWord?.value ?? optionValue(args, '--repo')?.value;
  const targets: PushTarget[] = [];
  if (mirror || hasOption(args, '--all', '--branches')) targets.push({ branch: '*', rewrites: force, deletes: mirror });
  for (const word of refspecs) {
    const target = refspecTarget(word.value, currentBranch, force, deletes);
    if (target) targets.push(target);
  }
  if (targets.length === 0 && refspecs.length === 0 && !deletes && !hasOption(args, '--tags')) {
    targets.push({ branch: currentBranch, rewrites: force, deletes: false });
  }
  return {
    ...(remote !== undefined && { remote }),
    targets,
    dryRun: hasOption(args, '-n', '--dry-run'),
    forceOptions: mirror ? [...forceOptions, '--mirror'] : forceOptions,
  };
}

/** The remote branch one refspec updates; undefined for a tag or another non-branch ref. */
function refspecTarget(
  refspec: string,
  currentBranch: string,
  force: boolean,
  deleteAll: boolean,
): PushTarget | undefined {
  const plus = refspec.startsWith('+');
  const spec = plus ? refspec.slice(1) : refspec;
  const colon = spec.indexOf(':');
  const source = colon < 0 ? spec : spec.slice(0, colon);
  // `main:` pushes to main; `:` pushes every matching branch; `HEAD` is the current branch.
  const written = colon < 0 || spec.slice(colon + 1) === '' ? source : spec.slice(colon + 1);
  const destination = written === '' ? '*' : written === 'HEAD' ? currentBranch : written;
  const branch = branchName(destination);
  if (branch === undefined) return undefined;
  return { branch, rewrites: force || plus, deletes: deleteAll || (colon >= 0 && source === '' && written !== '') };
}

/** `main`, `refs/heads/main` → `main`; a pattern → `*`; tags and other refs → undefined. */
function branchName(ref: string): string | undefined {
  const name = ref.startsWith('refs/heads/')
    ? ref.slice('refs/heads/'.length)
    : ref.startsWith('refs/')
      ? undefined
      : ref;
  if (name === undefined) return undefined;
  return name.includes('*') ? '*' : name;
}
