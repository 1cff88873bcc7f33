/**
 * An execution's place to run under the session service's admission control (service/admission.ts),
 * as the engine sees it: given back while the execution waits for a quota reset — a wait runs no
 * process and must not keep other executions from starting — and taken again, first come first
 * served, before it carries on. The owner of the execution implements it; `harmflow run` has none.
 */
export interface RunSlot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
  /** Resolves once a slot is held again; rejects when `signal` aborts first. */
  acquire(signal: AbortSignal | undefined): Promise<void>;
}
