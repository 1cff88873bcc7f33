/**
 * ExecutionControl lets the owner of a running execution steer it from outside the engine: ask for a
 * switch to the next harness of the chain now (the attempt running is interrupted and ends
 * `switched`; the next one gets the same handoff as after a quota switch), or end a wait for a quota
 * reset now. One control per execution; a switch requested while no attempt runs applies to the
 * next one; a resume applies only to a wait under way.
 */
export class ExecutionControl {
  #switchRequested = false;
  #listener: (() => void) | undefined;
  #resumeListener: (() => void) | undefined;

  /** Ends the wait for a quota reset under way, if there is one; returns whether there was. */
  resumeNow(): boolean {
    const listener = this.#resumeListener;
    this.#resumeListener = undefined;
    listener?.();
    return listener !== undefined;
  }

  /** Engine side: calls `listener` if `resumeNow` is called before the returned detach function. */
  watchResume(listener: () => void): () => void {
    this.#resumeListener = listener;
    return () => {
      if (this.#resumeListener === listener) this.#resumeListener = undefined;
    };
  }

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
