/**
 * The gates on the event stream of a harness without hooks: the same built-in gates, run in the
 * engine on each `tool.call` as it is parsed — after the harness started the call, so they record
 * what they would have refused (`gate.flagged`) and cannot stop it. Facts grow as the attempt pushes
 * and opens pull requests, as the gate runner's do. Operations are recorded by the engine itself (the
 * attempt observer), so the `operations` gate adds nothing here; custom gates run only through hooks
 * (a process per call, started by the harness, is what makes them a gate).
 */
import type { HarnessEvent } from '../events/schema.js';
import type { AttemptGates } from '../gates/attempt-file.js';
import { operationsGate } from '../gates/builtin/operations.js';
import { evaluate } from '../gates/evaluate.js';
import { type GateFacts, withSeen, workSeen } from '../gates/facts.js';
import { type ResolvedGates, resolveSettings } from '../gates/resolve.js';
import type { ToolCall } from '../gates/tool-call.js';
import type { AttemptRef, Recorder } from './recorder.js';

export class StreamGates {
  readonly #gates: ResolvedGates;
  #facts: GateFacts;
  readonly #calls = new Map<string, ToolCall>();

  constructor(
    attempt: AttemptGates,
    private readonly recorder: Recorder,
    private readonly ref: AttemptRef,
  ) {
    this.#gates = { ...resolveSettings(attempt.settings), operations: false };
    this.#facts = attempt.facts;
  }

  /** Feeds one parsed event. Never throws. */
  observe(event: HarnessEvent): void {
    if (event.type === 'tool.call') {
      const call = toolCallOf(event.data, this.#facts.worktree);
      this.#calls.set(call.id ?? '', call);
      const { verdict, gate, notes } = evaluate({ event: 'PreToolUse', call }, this.#facts, this.#gates);
      const about = { tool: call.tool, ...(call.id !== undefined && { toolId: call.id }) };
      if (verdict.decision === 'deny') {
        this.recorder.gate('gate.flagged', { gate: gate ?? 'gates', ...about, message: verdict.message }, this.ref);
      } else if (notes.length > 0) {
        this.recorder.gate('gate.noted', { ...about, notes }, this.ref);
      }
    } else if (event.type === 'tool.result') {
      const call = this.#calls.get(event.data.id);
      this.#calls.delete(event.data.id);
      if (call !== undefined) this.#learn(call, event.data);
    }
  }

  /** Adds the pushes and pull requests a finished call made to the facts. */
  #learn(call: ToolCall, result: { ok: boolean; output?: string | undefined; exitCode?: number | undefined }): void {
    const by = { attempt: this.ref.number, harness: this.ref.harness };
    const operations = operationsGate(
      call,
      {
        ok: result.ok,
        ...(result.output !== undefined && { output: result.output }),
        ...(result.exitCode !== undefined && { exitCode: result.exitCode }),
      },
      this.#facts,
    );
    this.#facts = withSeen(this.#facts, workSeen(operations, this.#facts.branch, by));
  }
}

/** A parsed `tool.call` as the gates read it: a shell call when it ran a command, a write when it named files. */
function toolCallOf(data: Extract<HarnessEvent, { type: 'tool.call' }>['data'], cwd: string): ToolCall {
  const kind =
    data.shell !== undefined ? 'shell' : data.files !== undefined && data.files.length > 0 ? 'write' : 'other';
  return {
    id: data.id,
    tool: data.name,
    kind,
    ...(data.shell !== undefined && { command: data.shell }),
    paths: data.files ?? [],
    cwd,
    input: data.input,
  };
}
