/**
 * The gates on the event stream of a harness without hooks: the same built-in gates, run in the
 * engine on each `tool.call` as it is parsed — after the harness started the call, so they record
 * what they would have refused (`gate.flagged`) and cannot stop it. The facts are the gate runner's
 * (the attempt's gates file plus `gate-seen.jsonl`, kept across the attempt's turns); the pushes and
 * pull requests the engine's observer recognizes are added to them (`learn`). Operations are recorded
 * by the engine itself; custom gates run only through hooks (a process per call, started by the
 * harness, is what makes them a gate). One per turn; the engine feeds it.
 */
import type { HarnessEvent, OperationData } from '../events/schema.js';
import { type AttemptGates, currentFacts, recordSeen } from '../gates/attempt-file.js';
import { evaluate } from '../gates/evaluate.js';
import { type GateFacts, withSeen, workSeen } from '../gates/facts.js';
import { type ResolvedGates, resolveSettings } from '../gates/resolve.js';
import type { ToolCall } from '../gates/tool-call.js';
import type { AttemptRef, Recorder } from './recorder.js';

export class StreamGates {
  readonly #gates: ResolvedGates;
  #facts: GateFacts;

  /** `attemptDir` holds the attempt's gates file and what its gates saw. */
  constructor(
    private readonly attempt: AttemptGates,
    private readonly attemptDir: string,
    private readonly recorder: Recorder,
    private readonly ref: AttemptRef,
  ) {
    this.#gates = resolveSettings(attempt.settings);
    this.#facts = currentFacts(attemptDir, attempt.facts);
  }

  /** Checks a parsed `tool.call` as a PreToolUse gate would have. Never throws. */
  observe(event: HarnessEvent): void {
    if (event.type !== 'tool.call') return;
    const call = toolCallOf(event.data, this.#facts.worktree);
    const { verdict, gate, notes } = evaluate({ event: 'PreToolUse', call }, this.#facts, this.#gates);
    const about = { tool: call.tool, ...(call.id !== undefined && { toolId: call.id }) };
    if (verdict.decision === 'deny') {
      this.recorder.gate('gate.flagged', { gate: gate ?? 'gates', ...about, message: verdict.message }, this.ref);
    } else if (notes.length > 0) {
      this.recorder.gate('gate.noted', { ...about, notes }, this.ref);
    }
  }

  /** Adds the pushes and pull requests among a finished call's operations to the facts, for later turns too. */
  learn(operations: readonly OperationData[]): void {
    const by = { attempt: this.ref.number, harness: this.ref.harness };
    const seen = workSeen(operations, this.attempt.facts.branch, by);
    if (seen.length === 0) return;
    recordSeen(this.attemptDir, seen);
    this.#facts = withSeen(this.#facts, seen);
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
