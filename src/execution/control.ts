/**
 * ExecutionControl lets the owner of a running execution steer it from outside the engine: today,
 * ask for a switch to the next harness of the chain now (the attempt running is interrupted and
 * ends `switched`; the next one gets the same handoff as after a quota switch). One control per
 * execution; requests made while no attempt runs apply to the next one.
 */
export class ExecutionControl {
  #switchRequested = false;
  #listener: (() => void) | undefined;

  /** Asks for a switch to the next harness. Idempotent until the switch happens. */
  requestSwitch(): void {
    this.#switchRequested = true;
    this.#listener?.();
  }

  /**
   * Engine side: calls `listener` once when a switch is (or already was) requested, for the attempt
   * running now. Returns the function that detaches it and clears the request once handled.
   */
  watchSwitch(listener: () => void): () => void {
    this.#listener = listener;
    if (this.#switchRequested) listener();
    return () => {
      this.#listener = undefined;
    };
  }

  /** Engine side: marks the pending request as carried out. */
  switchHandled(): void {
    this.#switchRequested = false;
  }
}
