/**
 * The pull request an execution opened, as its event records show it: an `operation` record of kind
 * `pull_request` that succeeded and names the pull request's URL (gh prints it once the pull request
 * exists: src/events/operations.ts). Only an `http:` or `https:` URL counts, so whatever a harness
 * printed never becomes a `javascript:` link. No Node, no DOM.
 */
import type { EventRecord } from './records.js';

export interface PullRequest {
  readonly url: string;
  readonly number?: number;
}

/** The pull request `record` says was opened; undefined for any other record. */
export function pullRequestOf(record: EventRecord): PullRequest | undefined {
  const { data } = record;
  if (record.type !== 'operation' || data.kind !== 'pull_request' || data.ok !== true) return undefined;
  if (typeof data.url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(data.url)) return undefined;
  return typeof data.number === 'number' ? { url: data.url, number: data.number } : { url: data.url };
}

/** How the page names it: `Pull request #12`, or `Pull request` when its number is unknown. */
export function pullRequestLabel(pullRequest: PullRequest): string {
  return pullRequest.number === undefined ? 'Pull request' : `Pull request #${pullRequest.number}`;
}
