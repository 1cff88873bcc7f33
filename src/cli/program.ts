/** Builds the `harmflow` command line: one register function per command group. */
import { Command } from 'commander';
import { registerAdmission } from './admission.js';
import { registerCancel } from './cancel.js';
import { registerDemo } from './demo.js';
import { registerGate } from './gate.js';
import { registerGc } from './gc.js';
import { registerHarnesses } from './harnesses.js';
import { registerRecords } from './records.js';
import { registerResume } from './resume.js';
import { registerRun } from './run.js';
import { registerSchema } from './schema.js';
import { registerSend } from './send.js';
import { registerServe } from './serve.js';
import { registerSimApi } from './sim-api.js';
import { registerStop } from './stop.js';
import { registerSubmit } from './submit.js';
import { registerSwitch } from './switch.js';
import { registerUi } from './ui.js';
import { registerWorker } from './worker.js';
import { registerWorkflow } from './workflow.js';

export function buildProgram(): Command {
  const program = new Command('harmflow')
    .description('Run AI coding-agent CLIs as durable executions that fail over across harnesses when quota runs out.')
    .version('0.1.0')
    .option('--debug', 'print stack traces of errors')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  registerDemo(program);
  registerRun(program);
  registerRecords(program);
  registerGc(program);
  registerHarnesses(program);
  registerSchema(program);
  registerSimApi(program);
  registerServe(program);
  registerWorker(program);
  registerSubmit(program);
  registerSend(program);
  registerCancel(program);
  registerResume(program);
  registerSwitch(program);
  registerAdmission(program);
  registerStop(program);
  registerUi(program);
  registerWorkflow(program);
  registerGate(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}
