/**
 * `harmflow gate <event> --harness <name> --sha256 <hex>`: the process a harness's hook starts around
 * a tool call, with the command line HarmFlow wrote into the hook (hook-event.ts `GateArgs`). The
 * `harmflow` launcher (bin/harmflow.js) routes here before it loads the CLI, so a call pays for the
 * gates and nothing else. Reads the hook's JSON on stdin, writes the harness's answer on stdout,
 * exits with the code the harness expects. A usage error (an unknown event or option, which no hook
 * HarmFlow installs has) is one line and exit 1, not the CLI's usual 2: every harness reads a hook's
 * exit 2 as "deny the call" and exit 1 as a hook that failed, which lets it run. A gates file the
 * runner cannot trust refuses every call (runner.ts); the runner's other troubles allow it unless the
 * task's gates fail closed.
 */
import { GATE_EVENTS, type GateEvent, parseGateArgs } from './hook-event.js';
import { runGate } from './runner.js';

const USAGE = `usage: harmflow gate <${GATE_EVENTS.join('|')}> --harness <name> --sha256 <hex>
Called by a harness's hook with the hook's JSON on stdin and HARMFLOW_GATE_DIR set; answers allow or deny.
--sha256 is the digest of the attempt's gates.json: without it, or for another file, every call is refused.
HarmFlow installs it for each attempt; see docs/gates.md.`;

/** How long stdin may stay open: a harness writes the hook's JSON at once and closes it. */
const STDIN_TIMEOUT_MS = 10_000;

async function main(argv: readonly string[]): Promise<void> {
  const [event, ...rest] = argv;
  if (event === '--help' || event === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const args = parseGateArgs(rest);
  if (!GATE_EVENTS.includes(event as GateEvent) || args === undefined) {
    process.stderr.write(
      `harmflow gate: expected one event, one of ${GATE_EVENTS.join(', ')}, then --harness <name> --sha256 <hex>; got ${JSON.stringify(argv.join(' '))}\n`,
    );
    process.exitCode = 1;
    return;
  }
  const stdin = await readStdin();
  const reply = await runGate({ event: event as GateEvent, stdin: stdin ?? '', env: process.env, args });
  if (stdin === undefined) process.stderr.write(`harmflow gate: stdin stayed open past ${STDIN_TIMEOUT_MS} ms\n`);
  if (reply.stderr !== undefined) process.stderr.write(`${reply.stderr}\n`);
  // Exit as soon as the answer is out: a custom gate the runner gave up on must not keep the harness waiting.
  process.stdout.write(reply.stdout, () => process.exit(reply.exitCode));
}

/** The whole of stdin, or undefined when it was not closed in time. */
function readStdin(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => resolve(undefined), STDIN_TIMEOUT_MS);
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.on('error', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

await main(process.argv.slice(3));
