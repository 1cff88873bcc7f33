/**
 * Which link of the chain the next attempt starts on, given what the quota registry knows: the first
 * link at or after `from` whose harness is not known to be out (the links passed over are named, with
 * their reset); when every link of the chain is out, the one whose reset comes first — to wait for,
 * if the task allows the wait, the wait fits `maxWait` and ends before the deadline. A task with
 * `switchAtUtilization` also passes over a link whose harness last reported its limit at or over
 * that share, while a later link is neither out nor near its limit. Pure.
 */
import type { ExecutionState } from '../core/outcome.js';
import type { HarnessSpec, Task } from '../core/task.js';
import type { OutUntil, QuotaView } from './quota.js';

/** A link passed over: its harness is out (`out`), or near its limit (`utilization`, at or over the task's threshold). */
export type Skip = { readonly index: number; readonly spec: HarnessSpec } & (
  | { readonly out: OutUntil; readonly utilization?: never }
  | { readonly utilization: number; readonly out?: never }
);

export type NextLink =
  | { readonly kind: 'link'; readonly index: number; readonly skipped: readonly Skip[] }
  | { readonly kind: 'wait'; readonly index: number; readonly out: OutUntil; readonly skipped: readonly Skip[] }
  | { readonly kind: 'end'; readonly state: ExecutionState; readonly why: string; readonly skipped: readonly Skip[] };

export interface NextLinkInput {
  readonly chain: Task['chain'];
  /** The first link the attempt may start on (the chain's length: none is left). */
  readonly from: number;
  readonly view: QuotaView;
  readonly now: number;
  readonly waitForReset: Task['waitForReset'];
  /** Epoch ms of the execution's deadline. */
  readonly deadline: number;
  /** The task's `switchAtUtilization`, when it has one. */
  readonly switchAtUtilization?: number | undefined;
}

export function nextLink(input: NextLinkInput): NextLink {
  const { chain, from, view, now } = input;
  const threshold = input.switchAtUtilization;
  const outs = chain.map((spec, index) => ({
    index,
    spec,
    out: view.outUntil(spec, now),
    near: threshold === undefined ? undefined : view.nearLimit(spec, now, threshold),
  }));
  const ahead = outs.filter((link) => link.index >= from && link.out === undefined);
  const free = ahead.find((link) => link.near === undefined) ?? ahead[0];
  if (free !== undefined) {
    const skipped = outs.slice(from, free.index).flatMap(({ index, spec, out, near }): Skip[] => {
      if (out !== undefined) return [{ index, spec, out }];
      return near === undefined ? [] : [{ index, spec, utilization: near }];
    });
    return { kind: 'link', index: free.index, skipped };
  }
  const skipped = outs.slice(from) as Skip[];
  if (outs.some((link) => link.out === undefined)) {
    return { kind: 'end', state: 'failed', why: 'no harness left in the chain that is not out of quota', skipped };
  }
  const all = outs as { index: number; spec: HarnessSpec; out: OutUntil }[];
  const first = all.reduce((earliest, link) => (link.out.until < earliest.out.until ? link : earliest));
  const list = all.map((link) => `${link.spec.harness} until ${describeUntil(link.out)}`).join(', ');
  const out = `every harness of the chain is out of quota (${list})`;
  if (input.waitForReset === false) {
    return {
      kind: 'end',
      state: 'failed',
      why: `${out}; the task does not wait for a reset (waitForReset, maxWait)`,
      skipped,
    };
  }
  const waitMs = first.out.until - now;
  const maxMs = input.waitForReset.maxMs;
  if (maxMs !== undefined && waitMs > maxMs) {
    return {
      kind: 'end',
      state: 'failed',
      why: `${out}; the first reset, ${first.spec.harness} at ${describeUntil(first.out)}, is more than maxWait (${Math.round(maxMs / 1000)}s) away`,
      skipped,
    };
  }
  if (first.out.until >= input.deadline) {
    return {
      kind: 'end',
      state: 'timed_out',
      why: `${out}; the first reset, ${first.spec.harness} at ${describeUntil(first.out)}, is after the deadline`,
      skipped,
    };
  }
  return { kind: 'wait', index: first.index, out: first.out, skipped };
}

/** `2026-12-01T13:40:00.000Z`, with `(estimated)` when the cool-down, not the harness, gave it. */
function describeUntil(out: OutUntil): string {
  return `${new Date(out.until).toISOString()}${out.known ? '' : ' (estimated: no reset time was given)'}`;
}
