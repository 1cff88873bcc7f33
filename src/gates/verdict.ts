/**
 * A gate's answer for one tool call. `deny.message` is read by the agent (the harness hands it back
 * as the tool's error), so it names what refused the call and what to do instead. `notes` are for
 * the event log, never for the agent: what a gate could not check, so a reader knows its limits.
 */
export type Verdict =
  | { readonly decision: 'allow'; readonly notes?: readonly string[] }
  | { readonly decision: 'deny'; readonly message: string };

export const ALLOW: Verdict = { decision: 'allow' };

/** An allow that carries notes; a plain `ALLOW` when there are none. */
export function allowNoting(notes: readonly string[]): Verdict {
  return notes.length === 0 ? ALLOW : { decision: 'allow', notes };
}

export function deny(message: string): Verdict {
  return { decision: 'deny', message };
}
