#!/usr/bin/env node
// CommonJS, as every file in bin/ (bin/package.json).
import('../dist/simulators/sim/main.js').catch((error) => {
  process.stderr.write(`sim: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
