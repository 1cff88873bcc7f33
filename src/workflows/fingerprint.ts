/**
 * Fingerprints: the hash of everything a step item's output depends on — the workflow, the step and
 * its declared version, the item key, the run parameters the step declares, its model settings, and
 * the digests of the upstream outputs it reads. Because upstream *outputs* enter (not upstream
 * fingerprints), an upstream item that is recomputed and comes out the same reruns nothing
 * downstream (early cutoff). The components are kept beside the output, so a plan can say what
 * changed. Hashes are SHA-256 of canonical JSON (object keys sorted), hex.
 */
import { createHash } from 'node:crypto';
import type { Json } from '../store/resume-store.js';
import type { ModelSettings } from './define.js';

/** Everything a step item's output depends on. */
export interface FingerprintComponents {
  readonly workflow: string;
  readonly step: string;
  readonly version: string;
  readonly item: string;
  readonly params: Readonly<Record<string, Json>>;
  readonly model?: ModelSettings;
  /** `[upstream step, item key, output digest]`, sorted. */
  readonly inputs: readonly (readonly [string, string, string])[];
}

/** JSON text with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((entry) => canonicalJson(entry as Json)).join(',')}]`;
  const object = value as { readonly [key: string]: Json };
  const keys = Object.keys(object).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key] as Json)}`).join(',')}}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** An output's canonical text and its digest. */
export function digestOf(output: Json): { readonly text: string; readonly digest: string } {
  const text = canonicalJson(output);
  return { text, digest: sha256(text) };
}

/** The fingerprint of a step item. */
export function fingerprintOf(components: FingerprintComponents): string {
  return sha256(canonicalJson(components as unknown as Json));
}

/** Why an item must run again, from the components stored with its last output and the new ones. */
export type RerunReason = 'new' | 'version' | 'params' | 'model' | 'upstream';

/** The reasons `next` differs from `previous` (none when the fingerprints are equal). */
export function rerunReasons(previous: FingerprintComponents | undefined, next: FingerprintComponents): RerunReason[] {
  if (previous === undefined) return ['new'];
  const reasons: RerunReason[] = [];
  if (previous.version !== next.version) reasons.push('version');
  if (canonicalJson(previous.params as Json) !== canonicalJson(next.params as Json)) reasons.push('params');
  if (canonicalJson((previous.model ?? null) as Json) !== canonicalJson((next.model ?? null) as Json)) {
    reasons.push('model');
  }
  if (canonicalJson(previous.inputs as unknown as Json) !== canonicalJson(next.inputs as unknown as Json)) {
    reasons.push('upstream');
  }
  return reasons;
}
