/**
 * ExecutionControl lets the owner of a running execution steer it from outside the engine: ask for a
 * switch to a chosen harness now (the attempt running is interrupted at its safepoint and ends
 * `switched`; the chosen harness carries on with the same handoff as after a quota switch), or end a
 * wait for a quota reset now. One control per execution. A switch asked while no attempt runs — the
 * execution waits for a reset, or is between attempts — applies before the next attempt starts; a
 * resume applies only to a wait under way.
 */
import type { HarnessName } from '../core/outcome.js';

/** A switch asked by hand: the harness (and model) to carry on with, who asked, and why. */
export interface SwitchRequest {
  readonly harness: HarnessName;
  readonly model?: string;
  /** Who asked: `cli (alice)`, `workbench`, `api`. */
  readonly by: string;
  readonly reason?: string;
}

/** `cli (alice) asked to switch to gemini: out of credit`: what a switch by hand ends an attempt with. */
export function switchAskedMessage(request: SwitchRequest): string {
  return `${request.by} asked to switch to ${request.harness}${request.model === undefined ? '' : ` (${request.model})`}${request.reason === undefined ? '' : `: ${request.reason}`}`;
}

export class ExecutionControl {
  #switch: SwitchRequest | undefined;
  #switchListener: (() => void) | undefined;
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

  /** Asks for a switch to `request.harness`; a second request before the switch replaces the first. */
  requestSwitch(request: SwitchRequest): void {
    this.#switch = request;
    this.#switchListener?.();
  }

  /**
   * Engine side: calls `listener` when a switch is asked (at once when one already is), until the
   * returned function detaches it. The request stays pending until `takeSwitch`.
   */
  watchSwitch(listener: () => void): () => void {
    this.#switchListener = listener;
    if (this.#switch !== undefined) listener();
    return () => {
      if (this.#switchListener === listener) this.#switchListener = undefined;
    };
  }

  /** Engine side: the pending switch request, left pending. */
  pendingSwitch(): SwitchRequest | undefined {
    return this.#switch;
  }

  /** Engine side: the pending switch request, which is then carried out (no longer pending). */
  takeSwitch(): SwitchRequest | undefined {
    const request = this.#switch;
    this.#switch = undefined;
    return request;
  }
}
