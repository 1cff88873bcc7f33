/**
 * Generates a git repository of a given size with `git fast-import` (seconds, not minutes): the
 * first commit adds `files` files spread over folders, each later commit changes a few of them.
 * Used by the benchmarks; the caller deletes the folder.
 */
import { spawnSync } from 'node:child_process';

const IDENTITY = 'Bench <bench@harmflow.invalid>';

/** Creates a repository at `dir` with `files` files and `commits` commits on `main`. */
export function generateRepo(dir, { files, commits }) {
  run('git', ['init', '--quiet', '--initial-branch=main', dir]);
  const chunks = [];
  const when = 1_700_000_000;
  for (let c = 0; c < commits; c++) {
    chunks.push(`commit refs/heads/main\nmark :${c + 1}\ncommitter ${IDENTITY} ${when + c} +0000\n`);
    const message = c === 0 ? `add ${files} files` : `change ${c}`;
    chunks.push(`data ${Buffer.byteLength(message)}\n${message}\n`);
    if (c > 0) chunks.push(`from :${c}\n`);
    const touched = c === 0 ? range(files) : range(5).map((i) => (c * 7 + i * 1931) % files);
    for (const f of touched) {
      const body = `// file ${f}, revision ${c}\nexport const value${f} = ${c};\n`;
      chunks.push(`M 100644 inline ${pathOf(f)}\ndata ${Buffer.byteLength(body)}\n${body}\n`);
    }
  }
  run('git', ['fast-import', '--quiet'], { cwd: dir, input: chunks.join('') });
  run('git', ['checkout', '--quiet', '-f', 'main'], { cwd: dir });
}

function pathOf(index) {
  return `src/m${Math.floor(index / 100)}/f${index}.js`;
}

function range(n) {
  return Array.from({ length: n }, (_, i) => i);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}
