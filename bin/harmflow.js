#!/usr/bin/env node
// CommonJS (bin/package.json): the everyday verbs start without Node's ES module loader.
// `harmflow gate` runs around every tool call of an agent: it loads only the gates, not the CLI.
// The everyday verbs run from their bundles (src/cli/bundled-verbs.ts, bundled into
// dist/cli-bundle/launch.cjs); every other verb, or every verb when the bundles are not built, runs
// in the whole program.
const { existsSync } = require('node:fs');

/** A program that could not load: an internal error (exit 1, docs/cli.md). */
const failed = (error) => {
  process.stderr.write(`harmflow: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
};

const launcher = `${__dirname}/../dist/cli-bundle/launch.cjs`;
if (process.argv[2] === 'gate') import('../dist/gate-runner/main.js').catch(failed);
else if (!existsSync(launcher)) import('../dist/cli/main.js').catch(failed);
else {
  require(launcher)
    .runBundledVerb(process.argv)
    .then((ran) => ran || import('../dist/cli/main.js'))
    .catch(failed);
}
