/**
 * Fingerprints: the hash of everything a step item's output depends on — the workflow, the step and
 * its declared version, the item key, the run parameters the step declares, its model settings, and
 * the digests of the upstream outputs it reads. Because upstream *outputs* enter (not upstream
 * fingerprints), an upstream item that is recomputed and comes out the same reruns nothing
 * downstream (early cutoff). The components are kept beside the output, so a plan can say what
 * changed. Hashes are SHA-256 of canonical JSON (object keys sorted), hex.
 */
import * as crypto from 'node:crypto';
import { z } from 'zod';
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
  /** The mark of the step's latest invalidation in the run (`workflow invalidate`): its time. */
  readonly invalidated?: string;
}

/**
 * JSON text with object keys sorted at every level: equal values give equal text, and `JSON.parse`
 * of it gives the value back (a key whose value is undefined is left out, as `JSON.stringify` does:
 * an optional model setting set to undefined). Built by concatenation rather than map and join: it
 * runs twice per item (the fingerprint, the output's digest), and this is ~1.5× faster for the small
 * values items hold; numbers and keys skip `JSON.stringify` (see quotedName), which made the digest
 * of a small output ~2× faster. The texts are also what the store keeps (ItemCommit.texts).
 */
export function canonicalJson(value: Json): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    const array = value as readonly Json[];
    let text = '[';
    for (let index = 0; index < array.length; index += 1) {
      if (index > 0) text += ',';
      text += canonicalJson(array[index] as Json);
    }
    return `${text}]`;
  }
  const object = value as { readonly [key: string]: Json };
  const keys = Object.keys(object).sort();
  let text = '{';
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    const member = object[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${quotedName(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/** How many quoted names quotedName keeps before it starts again: bounds its memory. */
const QUOTED_NAMES_KEPT = 10_000;
const quotedNames = new Map<string, string>();

/**
 * `JSON.stringify(name)` for a text that recurs item after item (an object key, a workflow, step or
 * version name), remembered: a lookup costs a fraction of the call, which is most of the time of the
 * small texts made per item.
 */
/** Texts JSON writes as they are, between quotes: nothing in them needs an escape. */
const PLAIN = /^[\w.:-]*$/;

/**
 * `JSON.stringify(text)` for an input's item key or digest, without the call when nothing in it needs
 * an escape. Not remembered (quotedName): a run's digests are as many as its items — 14,000 in
 * `npm run bench -- workflow`, where remembering them emptied the memory every 10,000 and made the
 * cached plan and resume 7–17% slower against the same-run floor — and the test and the quotes
 * cost about what a remembered lookup does (140,000 quotes: 23 ms, 20 ms remembered, 59 ms
 * stringified, one micro-benchmark).
 */
function quotedPlain(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

function quotedName(name: string): string {
  let quoted = quotedNames.get(name);
  if (quoted === undefined) {
    if (quotedNames.size >= QUOTED_NAMES_KEPT) quotedNames.clear();
    quoted = JSON.stringify(name);
    quotedNames.set(name, quoted);
  }
  return quoted;
}

/**
 * Hex SHA-256 of a text. `crypto.hash` (Node ≥ 20.12) is a one-shot call ~3× faster than a Hash
 * object for texts this short (0.35 against 1 µs; two per item); older Node 20 releases lack it.
 */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** An output's canonical text and its digest. */
export function digestOf(output: Json): { readonly text: string; readonly digest: string } {
  const text = canonicalJson(output);
  return { text, digest: sha256(text) };
}

/** The fingerprint of a step item. */
export function fingerprintOf(components: FingerprintComponents): string {
  return sha256(componentsText(components));
}

/** The fingerprint of a step item and the text it hashes (`componentsText`), which the store keeps. */
export function fingerprintWithText(components: FingerprintComponents): {
  readonly text: string;
  readonly fingerprint: string;
} {
  const text = componentsText(components);
  return { text, fingerprint: sha256(text) };
}

/**
 * `canonicalJson(components)`, written out for the components' known shape (keys in sorted order,
 * the input triples without a generic walk): it runs once per item, and is about twice as fast as the
 * general function. test/workflows/fingerprint.test.ts holds the two equal.
 */
export function componentsText(components: FingerprintComponents): string {
  let text = '{"inputs":[';
  const inputs = components.inputs;
  for (let index = 0; index < inputs.length; index += 1) {
    const [step, item, digest] = inputs[index] as readonly [string, string, string];
    if (index > 0) text += ',';
    text += `[${quotedName(step)},${quotedPlain(item)},${quotedPlain(digest)}]`;
  }
  text += ']';
  if (components.invalidated !== undefined) text += `,"invalidated":${JSON.stringify(components.invalidated)}`;
  text += `,"item":${JSON.stringify(components.item)}`;
  if (components.model !== undefined) text += `,"model":${canonicalJson(components.model as unknown as Json)}`;
  text += `,"params":${canonicalJson(components.params as Json)}`;
  text += `,"step":${quotedName(components.step)},"version":${quotedName(components.version)}`;
  return `${text},"workflow":${quotedName(components.workflow)}}`;
}

/** Why an item must run again, from the components stored with its last output and the new ones. */
export type RerunReason = 'new' | 'version' | 'params' | 'model' | 'upstream' | 'invalidated';

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
  if (previous.invalidated !== next.invalidated) reasons.push('invalidated');
  return reasons;
}

/** The components as stored beside an output: JSON read back from the store, checked. */
export const StoredComponents = z.object({
  workflow: z.string(),
  step: z.string(),
  version: z.string(),
  item: z.string(),
  params: z.record(z.string(), z.json()),
  model: z
    .object({
      provider: z.string(),
      name: z.string(),
      temperature: z.number().optional(),
      maxOutputTokens: z.number().optional(),
    })
    .optional(),
  inputs: z.array(z.tuple([z.string(), z.string(), z.string()])),
  invalidated: z.string().optional(),
});

/** Stored components as FingerprintComponents, or undefined when they do not have that shape. */
export function parseComponents(json: unknown): FingerprintComponents | undefined {
  const parsed = StoredComponents.safeParse(json);
  return parsed.success ? (parsed.data as FingerprintComponents) : undefined;
}
