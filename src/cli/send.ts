/**
 * `harmflow send ID TEXT...` — queues a follow-up message for a live execution on the running
 * service. The words are joined with spaces; `-` alone reads the message from stdin. Returns once
 * the service has queued it (the turn runs later, in order). The request carries one
 * `Idempotency-Key` for the invocation and is sent again with it while the service restarts
 * (client.ts, retry.ts): the message is delivered once.
 */
import { text as readAll } from 'node:stream/consumers';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { connect, HOME_HELP, URL_HELP } from './client.js';
import { serviceExecutionId } from './service-id.js';

/** The message: the words joined by spaces, or stdin for `-`. UsageError when it is blank. */
export async function messageText(words: readonly string[], stdin: NodeJS.ReadableStream): Promise<string> {
  const text = words.length === 1 && words[0] === '-' ? await readAll(stdin) : words.join(' ');
  if (text.trim() === '') throw new UsageError('the message is empty');
  return text;
}

export function registerSend(program: Command): void {
  program
    .command('send')
    .description('queue a follow-up message for a live execution on the running service')
    .argument('<id>', 'execution id or a unique prefix')
    .argument('<text...>', 'the message (words are joined by spaces; - reads it from stdin)')
    .option('--json', 'print the queued turn as JSON')
    .option('--home <dir>', HOME_HELP)
    .option('--url <url>', URL_HELP)
    .action(async (id: string, words: string[], options: { json?: boolean; home?: string; url?: string }) => {
      const client = connect(options);
      const execution = await serviceExecutionId(client, id);
      const turn = await client.send(execution, await messageText(words, process.stdin));
      if (options.json) return void process.stdout.write(`${JSON.stringify(turn, null, 2)}\n`);
      const ahead = turn.queued - 1;
      process.stdout.write(
        `queued turn ${turn.id} for ${turn.execution}${ahead > 0 ? ` (${ahead} ahead of it)` : ''}\n`,
      );
    });
}
