/** The whole `harmflow` program: every verb that has no bundled entry (cli/bundled-verbs.ts) runs here. */
import { buildProgram } from './program.js';
import { runCli } from './run-cli.js';

await runCli(process.argv, buildProgram());
