/**
 * The fake forge: a `gh`-style command (bin/forge/gh) for the simulator, the demo and the tests. It
 * keeps pull requests in `$HARMFLOW_FORGE_DIR/pulls.json` and answers the `gh pr` subset in argv.ts
 * with gh's own output shapes: `create` prints the new URL (and refuses a second open pull request for
 * the same head with gh's message), `list`/`view` print gh's non-terminal table or, with `--json`,
 * JSON with gh's field names. Exit codes: 0 ok, 1 error (as gh), 4 when HARMFLOW_FORGE_DIR is unset.
 * See docs/simulator.md.
 */
import { type ForgeCommand, type JsonField, parseForgeArgv } from './argv.js';
import { currentBranch, defaultBase, repoName } from './repo.js';
import { ForgeError, type PullRequest, readPulls, updatePulls } from './store.js';

/** Exit code when the forge has no store directory: the setup is wrong, not the command. */
const EXIT_NO_STORE = 4;

const URL_BASE = 'https://forge.example';

function field(pr: PullRequest, name: JsonField): string | number {
  switch (name) {
    case 'baseRefName':
      return pr.base;
    case 'headRefName':
      return pr.head;
    case 'state':
      return pr.state.toUpperCase();
    default:
      return pr[name];
  }
}

/** gh prints `--json` objects with their keys sorted. */
function pick(pr: PullRequest, fields: readonly JsonField[]): Record<string, string | number> {
  return Object.fromEntries([...fields].sort().map((name) => [name, field(pr, name)]));
}

async function create(dir: string, cwd: string, command: Extract<ForgeCommand, { verb: 'create' }>): Promise<string> {
  const repo = repoName(cwd);
  const head = command.head ?? currentBranch(cwd);
  const base = command.base ?? defaultBase(cwd);
  const pr = await updatePulls(dir, (pulls) => {
    const open = pulls.find((p) => p.repo === repo && p.head === head && p.state === 'open');
    if (open !== undefined) {
      throw new ForgeError(
        `a pull request for branch "${head}" into branch "${open.base}" already exists:\n${open.url}`,
      );
    }
    const number = 1 + Math.max(0, ...pulls.filter((p) => p.repo === repo).map((p) => p.number));
    const created: PullRequest = {
      number,
      url: `${URL_BASE}/${repo}/pull/${number}`,
      title: command.title,
      body: command.body,
      head,
      base,
      state: 'open',
      repo,
      createdAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    return { pulls: [...pulls, created], result: created };
  });
  return `${pr.url}\n`;
}

async function list(dir: string, cwd: string, command: Extract<ForgeCommand, { verb: 'list' }>): Promise<string> {
  const repo = repoName(cwd);
  const found = (await readPulls(dir))
    .filter(
      (pr) =>
        pr.repo === repo &&
        (command.state === 'all' || pr.state === command.state) &&
        (command.head === undefined || pr.head === command.head) &&
        (command.base === undefined || pr.base === command.base),
    )
    .reverse();
  if (command.json !== undefined) {
    const fields = command.json;
    return `${JSON.stringify(found.map((pr) => pick(pr, fields)))}\n`;
  }
  return found
    .map((pr) => `${pr.number}\t${pr.title}\t${pr.head}\t${pr.state.toUpperCase()}\t${pr.createdAt}\n`)
    .join('');
}

async function view(dir: string, cwd: string, command: Extract<ForgeCommand, { verb: 'view' }>): Promise<string> {
  const repo = repoName(cwd);
  const pulls = (await readPulls(dir)).filter((pr) => pr.repo === repo);
  let pr: PullRequest | undefined;
  if (command.number !== undefined) {
    pr = pulls.find((p) => p.number === command.number);
    if (pr === undefined) {
      throw new ForgeError(
        `GraphQL: Could not resolve to a PullRequest with the number of ${command.number}. (repository.pullRequest)`,
      );
    }
  } else {
    const branch = currentBranch(cwd);
    pr = pulls.filter((p) => p.head === branch).at(-1);
    if (pr === undefined) throw new ForgeError(`no pull requests found for branch "${branch}"`);
  }
  if (command.json !== undefined) return `${JSON.stringify(pick(pr, command.json))}\n`;
  const head = [
    ['title', pr.title],
    ['state', pr.state.toUpperCase()],
    ['number', String(pr.number)],
    ['url', pr.url],
    ['base', pr.base],
    ['head', pr.head],
  ];
  return `${head.map(([key, value]) => `${key}:\t${value}`).join('\n')}\n--\n${pr.body}\n`;
}

async function main(): Promise<void> {
  const dir = process.env.HARMFLOW_FORGE_DIR;
  if (!dir) {
    process.stderr.write('gh (fake forge): HARMFLOW_FORGE_DIR is not set (the directory that holds pulls.json)\n');
    process.exitCode = EXIT_NO_STORE;
    return;
  }
  const command = parseForgeArgv(process.argv.slice(2));
  const cwd = process.cwd();
  const output =
    command.verb === 'create'
      ? await create(dir, cwd, command)
      : command.verb === 'list'
        ? await list(dir, cwd, command)
        : await view(dir, cwd, command);
  process.stdout.write(output);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof ForgeError ? error.exitCode : 1;
});
