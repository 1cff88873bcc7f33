/** Builds the `harmflow` command line: one register function per command group. */
import type { Command } from 'commander';
import { registerAdmission } from './admission.js';
import { registerCancel } from './cancel.js';
import { registerCompletion } from './completion.js';
import { registerDemo } from './demo.js';
import { registerGate } from './gate.js';
import { registerGc } from './gc.js';
import { registerHarnesses } from './harnesses.js';
import { registerRecords } from './records.js';
import { registerResume } from './resume.js';
import { overrideExits, rootCommand } from './root-command.js';
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
  const program = rootCommand();
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
  registerCompletion(program);
  registerGate(program);
  return overrideExits(program);
}
