/**
 * How `harmflow workflow why` prints a provenance report (workflow-why.ts): the item and its output,
 * then what it read as an indented tree, one line per input — its run item now and whether that is
 * still what was read — with the components of each input that was followed under it. Text only.
 */

import type { Json, RunItem } from '../store/resume-store.js';
import type { ModelSettings } from '../workflows/define.js';
import { runStatus } from '../workflows/run-owner.js';
import type { InputGroup, WhyInput, WhyNode, WhyReport, WhySource } from './workflow-why.js';

/** 300 characters of the item's output: a fact-check verdict and its reason fit; `--json` gives any output whole. */
const OUTPUT_CHARS = 300;

/** 12 hex digits of a digest or fingerprint: enough to tell outputs apart by eye, short enough to read. */
const SHORT = 12;

const INDENT = '  ';

/** The report as text. */
export function formatWhy(report: WhyReport): string {
  const { run, item } = report;
  // The state as `workflow status` shows it: a `running` run whose process is gone is `interrupted`.
  const lines = [`run ${run.id} of ${run.workflow}: ${runStatus(run).state}${run.message ? ` — ${run.message}` : ''}`];
  const fingerprint = item.runItem ? `, fingerprint ${short(item.runItem.fingerprint)}` : '';
  lines.push(`${item.step} ${item.item}: ${statusOf(item.runItem)}${fingerprint}`);
  if (report.output !== undefined) lines.push(`${INDENT}output ${truncated(report.output)}`);
  body(item, 1, lines);
  return lines.join('\n');
}

/** A followed node's note or components and inputs, at `level` indents. */
function body(node: WhyNode, level: number, lines: string[]): void {
  const pad = INDENT.repeat(level);
  if (node.note !== undefined) lines.push(`${pad}${node.note}`);
  const source = node.source;
  if (source === undefined) return;
  for (const line of sourceLines(source)) lines.push(`${pad}${line}`);
  for (const group of source.inputs) {
    for (const input of group.shown) {
      lines.push(`${pad}← ${input.node.step} ${input.node.item}: ${inputLine(input)}`);
      body(input.node, level + 1, lines);
    }
    const more = moreLine(group);
    if (more !== undefined) lines.push(`${pad}← ${more}`);
  }
}

/** The components, after a line saying where they come from when that is not the item's own output. */
function sourceLines(source: WhySource): string[] {
  const count = source.inputs.reduce((sum, group) => sum + group.count, 0);
  const parts = [
    `version ${source.version}`,
    `params ${JSON.stringify(source.params)}`,
    ...(source.model !== undefined ? [`model ${modelOf(source.model)}`] : []),
    count === 0 ? 'read no upstream output' : `read ${count} upstream output${count === 1 ? '' : 's'}:`,
  ];
  const components = parts.join(' · ');
  const earlier = `its earlier output ${short(source.fingerprint)} of ${source.createdAt}`;
  switch (source.basis) {
    case 'output':
      return [components];
    case 'verified':
      return [`what it read: ${earlier}, with the run's current inputs, hashes to its fingerprint`, components];
    case 'earlier':
      return [`what it read is not known; ${earlier} had`, components];
  }
}

/** The run's item for an input now, and whether that is what was read. */
function inputLine(input: WhyInput): string {
  const read = short(input.read);
  const against = {
    'as-read': 'as read',
    changed: `CHANGED since it was read (it was ${read})`,
    failed: `FAILED since ${read} was read`,
    missing: `${read} was read`,
  }[input.now];
  const repeated = input.node.repeated ? ' (its inputs are under its other entry)' : '';
  return `${statusOf(input.node.runItem)} — ${against}${repeated}`;
}

/** The inputs of a group not shown, counted; undefined when all are shown. */
function moreLine(group: InputGroup): string | undefined {
  const hidden = group.count - group.shown.length;
  if (hidden <= 0) return undefined;
  const off = group.notAsRead - group.shown.filter((input) => input.now !== 'as-read').length;
  return `${group.step}: ${hidden} more, ${off === 0 ? 'all as read' : `${off} of them not as read`}`;
}

function statusOf(item: RunItem | undefined): string {
  if (item === undefined) return 'not in this run';
  const tries = `${item.tries} ${item.tries === 1 ? 'try' : 'tries'}`;
  if (item.status === 'failed') return `FAILED after ${tries}: ${item.error}`;
  const how = item.cached ? 'reused' : `computed (${tries})`;
  return `done, ${how}, digest ${short(item.digest)}`;
}

function modelOf(model: ModelSettings): string {
  const { provider, name, ...rest } = model;
  const settings = Object.entries(rest).map(([key, value]) => ` ${key}=${JSON.stringify(value)}`);
  return `${String(provider)}/${String(name)}${settings.join('')}`;
}

const short = (hash: string): string => hash.slice(0, SHORT);

function truncated(output: Json): string {
  const text = JSON.stringify(output);
  if (text.length <= OUTPUT_CHARS) return text;
  return `${text.slice(0, OUTPUT_CHARS)}… (${text.length} characters; --json prints it whole)`;
}
