/**
 * `harmflow admission` — shows the running service's admission control (its concurrency cap, load,
 * disk, and whether new executions are held and why); `admission hold REASON...` stops it from
 * taking new executions until `admission release`. Running executions are not affected.
 */
import type { Command } from 'commander';
import { formatBytes } from '../core/bytes.js';
import { type AdmissionStatus, connect, HOME_HELP, URL_HELP } from './client.js';

interface Options {
  json?: boolean;
  home?: string;
  url?: string;
}

/** The status as lines for people. */
export function formatAdmission(status: AdmissionStatus): string[] {
  if ('mode' in status) {
    const { waiting, active, delayed } = status.queue;
    return [
      `admission  ${status.held ? 'held' : 'open'} (cluster mode: each worker also pauses below its own disk floor)`,
      ...status.reasons.map((reason) => `  - ${reason}`),
      `queue      ${waiting} waiting, ${active} being driven, ${delayed} delayed`,
    ];
  }
  return [
    `admission  ${status.held ? 'held' : 'open'}`,
    ...status.reasons.map((reason) => `  - ${reason}`),
    `running    ${status.running} of ${status.cap} (cap from ${status.capFrom})`,
    `queued     ${status.queued}`,
    `load       ${status.load1m.toFixed(2)} over 1 min on ${status.cores} cores`,
    `disk free  ${status.diskFreeBytes === undefined ? 'unknown' : formatBytes(status.diskFreeBytes)} (floor ${formatBytes(status.diskFloorBytes)})`,
    ...(status.worktreesBytes === undefined || status.runsBytes === undefined
      ? []
      : [
          `disk used  worktrees ${formatBytes(status.worktreesBytes)}, run directories ${formatBytes(status.runsBytes)}${status.cachesBytes === undefined ? '' : `, shared caches ${formatBytes(status.cachesBytes)}`}`,
        ]),
  ];
}

function print(status: AdmissionStatus, options: Options): void {
  const text = options.json ? JSON.stringify(status, null, 2) : formatAdmission(status).join('\n');
  process.stdout.write(`${text}\n`);
}

export function registerAdmission(program: Command): void {
  const admission = program
    .command('admission')
    .description("show the running service's admission control; hold or release new executions")
    .option('--json', 'print the status as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (options: Options) => {
      print(await connect(options).admission(), options);
    });

  admission
    .command('hold')
    .description('stop the service from starting new executions (running ones go on)')
    .argument('<reason...>', 'why (shown by `harmflow admission` and in refusals of submit)')
    .option('--json', 'print the status as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (words: string[], _options: Options, command: Command) => {
      // optsWithGlobals: `admission --json hold …` and `admission hold … --json` mean the same.
      const options = command.optsWithGlobals<Options>();
      print(await connect(options).hold(words.join(' ')), options);
    });

  admission
    .command('release')
    .description('let the service start new executions again')
    .option('--json', 'print the status as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (_options: Options, command: Command) => {
      const options = command.optsWithGlobals<Options>();
      print(await connect(options).release(), options);
    });
}
