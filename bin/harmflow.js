#!/usr/bin/env node
// `harmflow gate` runs around every tool call of an agent: it loads only the gates, not the CLI.
// The everyday verbs run from their bundles (dist/cli/bundled-verbs.js); every other verb runs in
// the whole program.
if (process.argv[2] === 'gate') await import('../dist/gate-runner/main.js');
else {
  const { runBundledVerb } = await import('../dist/cli/bundled-verbs.js');
  if (!(await runBundledVerb(process.argv))) await import('../dist/cli/main.js');
}
