/**
 * `harmflow sim-api` — serves the loopback model-API simulator from a scripts file, prints its URL
 * and one line per request, and stops on SIGINT or SIGTERM. docs/model-api-simulator.md describes
 * the scripts and how to point each real harness CLI at it.
 */
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { formatRecord } from '../simulators/model-api/log.js';
import { loadScriptsFile, ScriptError, type ScriptsSpec } from '../simulators/model-api/script.js';
import { startModelApi } from '../simulators/model-api/server.js';

export interface SimApiOptions {
  /** The scripts file. */
  readonly script: string;
  /** The port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** A file each request is appended to as one JSON line. */
  readonly log?: string;
}

/**
 * Serves the simulator until `stop` is aborted, writing its URL, each request and a closing line
 * with `print`. Throws UsageError for a scripts file that cannot be loaded.
 */
export async function serveSimApi(
  options: SimApiOptions,
  print: (line: string) => void,
  stop: AbortSignal,
): Promise<void> {
  let scripts: ScriptsSpec;
  try {
    scripts = await loadScriptsFile(options.script);
  } catch (error) {
    if (error instanceof ScriptError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const api = await startModelApi({
    port: options.port,
    scripts,
    ...(options.log !== undefined && { logFile: options.log }),
    onRequest: (record) => print(formatRecord(record)),
  });
  print(`harmflow sim-api listening on ${api.url}`);
  for (const name of Object.keys(scripts)) print(`  script ${name}: ${api.url}/${name}`);
  print('stop with Ctrl-C');
  if (!stop.aborted) await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve()));
  await api.close();
  const count = api.requests.length;
  print(`stopped after ${count} request${count === 1 ? '' : 's'}`);
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: not a port: ${value}`);
  return port;
}

export function registerSimApi(program: Command): void {
  program
    .command('sim-api')
    .description('serve the loopback model-API simulator (Anthropic, OpenAI, Gemini APIs) from a scripts file')
    .requiredOption('--script <file>', 'scripts file: YAML, or JSON when the name ends in .json')
    .option('--port <port>', 'port on 127.0.0.1 (default: any free port)', parsePort, 0)
    .option('--log <file>', 'append each request to this file as one JSON line')
    .action(async (options: { script: string; port: number; log?: string }) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await serveSimApi(options, (line) => process.stdout.write(`${line}\n`), controller.signal);
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
