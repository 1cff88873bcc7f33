/**
 * How `harmflow workflow why RUN STEP --failed` prints its report (workflow-why-failed.ts): the
 * step's failures and passes, then each upstream step by level — its versions, whether its outputs
 * were read as they are now, and its outputs read by two failures or more, least likely by chance
 * first — and a verdict line. Text only.
 */

import { runStatus } from '../workflows/run-owner.js';
import type { FailureReport, FailureVerdict, Feature, UpstreamStep } from './workflow-why-failed.js';

/** 12 hex digits of a digest: as `why` prints them. */
const SHORT = 12;

const INDENT = '  ';

const numbers = new Intl.NumberFormat('en-US');
const n = (value: number): string => numbers.format(value);

/** The report as text. */
export function formatFailures(report: FailureReport): string {
  const { run, step } = report;
  const lines = [`run ${run.id} of ${run.workflow}: ${runStatus(run).state}${run.message ? ` — ${run.message}` : ''}`];
  const failures = report.failed + report.verdicts;
  if (failures === 0) {
    lines.push(
      `${step}: none of its ${n(report.items)} items in this run failed (no FAILED item, no failing verdict): nothing to compare`,
    );
    return lines.join('\n');
  }
  const kinds = `${n(report.verdicts)} with a failing verdict (ok: false), ${n(report.failed)} FAILED`;
  const more = failures > report.examples.length ? ', …' : '';
  lines.push(
    `${step}: ${n(failures)} of its ${n(report.items)} items failed — ${kinds}: ${report.examples.join(', ')}${more}`,
  );
  if (report.unknownReads > 0) {
    lines.push(
      `${INDENT}${n(report.unknownReads)} of the failures left out: FAILED, with no output of the same inputs stored, what they read is not known`,
    );
  }
  if (report.unstored > 0) {
    lines.push(`${INDENT}${n(report.unstored)} items left out: their output is no longer stored`);
  }
  const { compared } = report;
  lines.push(
    `compared what ${n(compared.failures)} failures and ${n(compared.passes)} passes read, ${report.depth} ${report.depth === 1 ? 'level' : 'levels'} up: ` +
      `${n(report.tested)} outputs, versions and states read by a failure; strong: at least 2 failures and a chance of ${oneIn(report.threshold)} or less`,
  );
  for (const upstream of report.steps) stepLines(upstream, report, lines);
  lines.push('', `verdict: ${verdictLine(report.verdict, report)}`);
  return lines.join('\n');
}

function stepLines(upstream: UpstreamStep, report: FailureReport, lines: string[]): void {
  const { compared } = report;
  const reading =
    upstream.failuresReading === compared.failures && upstream.passesReading === compared.passes
      ? ''
      : ` (read by ${of(upstream.failuresReading, compared.failures, 'failures')}, ${of(upstream.passesReading, compared.passes, 'passes')})`;
  const shared = upstream.sharedByFailures === 0 ? 'none' : n(upstream.sharedByFailures);
  lines.push(
    '',
    `← ${upstream.step} (level ${upstream.level}, read by ${upstream.via.join(', ')}): ${plural(upstream.outputs, 'output')} read${reading}; ` +
      `the failures read ${n(upstream.readByFailures)}, ${shared} of them by two failures or more`,
  );
  for (const version of upstream.versions)
    lines.push(`${INDENT}version ${version.version}: ${countsOf(version, report)}`);
  lines.push(
    upstream.notAsRead === undefined
      ? `${INDENT}all as read`
      : `${INDENT}not as read (changed, failed or gone since): ${countsOf(upstream.notAsRead, report)}`,
  );
  for (const feature of upstream.ranked) {
    const version = feature.version !== undefined ? ` v${feature.version}` : '';
    lines.push(
      `${INDENT}${feature.item}${version} ${(feature.digest ?? '').slice(0, SHORT)}: ${countsOf(feature, report)}`,
    );
  }
  const hidden = upstream.sharedByFailures - upstream.ranked.length;
  if (hidden > 0) lines.push(`${INDENT}(${n(hidden)} more read by two failures or more; --inputs shows more)`);
}

/** "8 of 37 failures (1.9 expected), 66 of 1,374 passes — 4.5×, chance 1 in 2,268". */
function countsOf(feature: Feature, report: FailureReport): string {
  const { compared } = report;
  if (feature.failures === compared.failures && feature.passes === compared.passes) {
    return `all ${n(compared.failures)} failures and all ${n(compared.passes)} passes`;
  }
  const expected = ` (${feature.expected.toFixed(1)} expected)`;
  const counts = `${of(feature.failures, compared.failures, 'failures')}${expected}, ${of(feature.passes, compared.passes, 'passes')}`;
  if (feature.failures < 2 || compared.passes === 0) return counts;
  const lift = feature.lift === null ? 'read by no pass' : `${feature.lift.toFixed(1)}×`;
  return `${counts} — ${lift}, chance ${oneIn(feature.chance)}${feature.strong ? ' — STRONG' : ''}`;
}

function verdictLine(verdict: FailureVerdict, report: FailureReport): string {
  const { compared, run, step } = report;
  const caveat = 'correlation over what was read, not proof of a cause';
  switch (verdict.kind) {
    case 'no-failures':
      return 'no failures';
    case 'not-comparable':
      return verdict.reason === 'one-failure'
        ? `fewer than 2 failures whose reads are known: nothing to compare across failures (harmflow workflow why ${run.id} ${step} ITEM shows what one read)`
        : 'no item passed: nothing to compare the failures with';
    case 'separated': {
      const { best } = verdict;
      const uncovered = compared.failures - verdict.failures;
      const rest =
        uncovered === 0
          ? 'every failure reads one of them'
          : `the other ${n(uncovered)} failures read none of them: the cause may be wider`;
      const also =
        verdict.also.length === 0
          ? ''
          : ` Also strong: ${verdict.also.map((other) => `${other.step} (level ${other.level})`).join(', ')}.`;
      const strong =
        verdict.strong === 1
          ? 'its one strong output, version or state'
          : `its ${n(verdict.strong)} strong outputs, versions and states`;
      return (
        `${verdict.step} (level ${verdict.level}) is the deepest step whose outputs set the failures apart: ` +
        `${featureName(best)}, ${readBy(best, report)}, has a chance of ${oneIn(best.chance)}. ` +
        `Taken together, ${strong} ${verdict.strong === 1 ? 'is' : 'are'} read by ` +
        `${of(verdict.failures, compared.failures, 'failures')} and ${of(verdict.passes, compared.passes, 'passes')}; ${rest}.${also} ` +
        `This is ${caveat}.`
      );
    }
    case 'not-separated': {
      const { strongest } = verdict;
      const best =
        strongest === undefined
          ? ' No output, version or state is read by two failures or more and not by every item.'
          : ` The strongest, ${featureName(strongest)}, ${readBy(strongest, report)}, has a chance of ${oneIn(strongest.chance)}: where ${n(report.tested)} were compared, strong needs ${oneIn(report.threshold)}.`;
      const deepest = verdict.shared[0];
      const example = report.examples[0];
      const shared =
        deepest === undefined
          ? ''
          : ` The deepest outputs two failures share (and not every item reads) are ${deepest.step}'s (level ${deepest.level}):` +
            ` a cause shared there would be in what they say, which this does not read` +
            `${example === undefined ? '' : ` (harmflow workflow why ${run.id} ${step} ${example} shows one failure's inputs)`}.`;
      return `nothing the failures read sets them apart from the passes beyond chance.${best}${shared} This is ${caveat}.`;
    }
  }
}

/** "read by 8 of 37 failures (1.9 expected by chance) and 66 of 1,374 passes". */
function readBy(feature: Feature, report: FailureReport): string {
  const { compared } = report;
  return (
    `read by ${of(feature.failures, compared.failures, 'failures')} (${feature.expected.toFixed(1)} expected by chance)` +
    ` and ${of(feature.passes, compared.passes, 'passes')}`
  );
}

function featureName(feature: Feature): string {
  switch (feature.kind) {
    case 'output':
      return `${feature.step} ${feature.item}${feature.version !== undefined ? ` v${feature.version}` : ''}`;
    case 'version':
      return `${feature.step} version ${feature.version}`;
    case 'not-as-read':
      return `${feature.step} outputs not as read`;
  }
}

const of = (count: number, total: number, what: string): string => `${n(count)} of ${n(total)} ${what}`;

const plural = (count: number, what: string): string => `${n(count)} ${what}${count === 1 ? '' : 's'}`;

/** A chance as "1 in 2,268" (or a percentage from 1% up, where "1 in" reads oddly). */
function oneIn(chance: number): string {
  if (chance >= 0.01) return `${Math.round(chance * 100)}%`;
  const odds = 1 / chance;
  return odds >= 1e9 ? 'under 1 in a billion' : `1 in ${n(Math.round(odds))}`;
}
