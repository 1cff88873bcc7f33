#!/usr/bin/env node
// `harmflow gate` runs around every tool call of an agent: it loads only the gates, not the CLI.
if (process.argv[2] === 'gate') await import('../dist/gate-runner/main.js');
else await import('../dist/cli/main.js');
