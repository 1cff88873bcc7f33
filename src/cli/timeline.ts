/**
 * Formats event records for people: one line per record, the attempt and harness named, switches
 * and the workspace's warnings set apart, each line whole (cli/timeline-output.ts cuts it at a
 * terminal's width). Pure; the `events`, `run` and `demo` commands print what it returns. A line is inert (core/terminal-text.ts): what a harness wrote shows its control
 * characters as escapes (`\x1b`), so printing it cannot drive the user's terminal.
 *
 * Left out (undefined): a `gate.allowed` with no notes — there is one per tool call, right beside
 * the call's own `tool.call` line, and it would say only that the gates let it through; one with
 * notes (what a gate could not check) is a line. `--json` prints every record.
 *
 * The words of the newer records (`workspace.warning`, `gate.allowed`) are describeEvent's
 * (src/web/describe-event.ts), the describer of the Workbench and the terminal UI; the others are
 * still this file's own (see docs/cli.md).
 */
import { inertText } from '../core/terminal-text.js';
import type { EventData, EventRecord } from '../events/schema.js';
import { describeEvent, describeWorkspaceWarning, isRoutine, sandboxWords } from '../web/describe-event.js';
import { describeOperation } from '../web/describe-operation.js';

/** How a turn reached the harness, in words (the record's `delivery`). */
const DELIVERY: Record<EventData<'turn.started'>['delivery'], string> = {
  first: 'first delivery',
  handoff: 'handed on after a switch',
  redelivered: 'delivered again after a restart',
};

/** One record as an inert line (or, for a switch, a few lines); undefined for records not worth a line. */
export function formatRecord(record: EventRecord): string | undefined {
  const line = lineOf(record);
  return line === undefined ? undefined : inertText(line);
}

function lineOf(record: EventRecord): string | undefined {
  const time = record.ts.slice(11, 23);
  const who = record.attempt !== undefined ? `#${record.attempt} ${record.harness ?? ''}` : 'execution';
  const text = describe(record);
  if (text === undefined) return undefined;
  if (record.type === 'failover') {
    const rule = '═'.repeat(8);
    return `${rule} ${time}  SWITCH ${text} ${rule}`;
  }
  if (record.type === 'workspace.warning') {
    return `${'!'.repeat(8)} ${time}  WARNING${record.attempt !== undefined ? ` (${who})` : ''} ${flat(text)}`;
  }
  return `${time}  ${who.padEnd(16)} ${record.type.padEnd(19)} ${flat(text)}`;
}

function describe(record: EventRecord): string | undefined {
  switch (record.type) {
    case 'execution.started':
      return `task ${record.data.task} on ${record.data.branch}; chain ${record.data.chain.join(' → ')}; deadline ${record.data.deadline}`;
    case 'execution.resumed':
      return `carried on after a restart${record.data.openAttempt !== undefined ? `; attempt ${record.data.openAttempt} was left open` : ''}`;
    case 'message.queued':
      return `${record.data.turn} queued (${record.data.queued} waiting): ${record.data.text}`;
    case 'turn.started':
      return `${record.data.turn} (${DELIVERY[record.data.delivery]}${record.data.resumedSession ? `, resumes session ${record.data.resumedSession.slice(0, 8)}` : ''}): ${record.data.text}`;
    case 'turn.redelivered':
      return `${record.data.turn}: ${record.data.reason}`;
    case 'turn.ended':
      return `${record.data.turn} ${record.data.outcome} after ${(record.data.durationMs / 1000).toFixed(1)}s`;
    case 'cancel.requested':
      return `interrupt budget ${record.data.budgetMs / 1000}s`;
    case 'switch.requested':
      return `${record.data.by} asks to switch to ${record.data.harness}${record.data.model ? ` (${record.data.model})` : ''}${record.data.reason ? `: ${record.data.reason}` : ''}`;
    case 'attempt.started':
      return `${record.data.command}${record.data.model ? ` (${record.data.model})` : ''}${record.data.handoff ? ', given the handoff' : ''}; ${Math.round(record.data.timeLeftMs / 1000)}s left${sandboxWords(record.data.sandboxed)}`;
    case 'session.started':
      return `session ${record.data.sessionId}${record.data.model ? ` (${record.data.model})` : ''}`;
    case 'message':
      return record.data.text;
    case 'tool.call':
      return `${record.data.name}: ${record.data.shell ?? record.data.files?.join(', ') ?? JSON.stringify(record.data.input)}`;
    case 'tool.result':
      return `${record.data.ok ? 'ok' : 'error'}${record.data.exitCode !== undefined ? ` (exit ${record.data.exitCode})` : ''}`;
    case 'plan':
      return record.data.items.map((item) => `[${mark(item.status)}] ${item.text}`).join('  ');
    case 'operation':
      return describeOperation(record.data);
    case 'workspace.warning':
      return describeWorkspaceWarning(record.data.kind, record.data.message).replace(/^⚠ /, '');
    case 'gate.allowed':
      return isRoutine(record) ? undefined : describeEvent(record);
    case 'usage': {
      const { inputTokens, outputTokens, costUsd } = record.data;
      return `${inputTokens ?? '?'} in / ${outputTokens ?? '?'} out tokens${costUsd !== undefined ? `, $${costUsd.toFixed(4)}` : ''}`;
    }
    case 'retry':
      return `retry ${record.data.attempt ?? ''}${record.data.maxRetries ? `/${record.data.maxRetries}` : ''} ${record.data.reason ?? record.data.message ?? ''}`.trim();
    case 'rate_limit':
      return `${record.data.status}${record.data.window ? ` (${record.data.window})` : ''}${record.data.resetsAt ? `, resets ${record.data.resetsAt}` : ''}`;
    case 'harness.error':
      return `${record.data.fatal ? 'fatal: ' : ''}${record.data.message}`;
    case 'result':
      return `${record.data.ok ? 'success' : 'error'}${record.data.message ? `: ${record.data.message}` : ''}`;
    case 'warning':
      return record.data.message;
    case 'raw':
      return `(${record.data.stream}) ${record.data.line}`;
    case 'quota.exhausted':
      return `${record.data.message ?? ''}${record.data.resetsAt ? ` (resets ${record.data.resetsAt})` : ''}`;
    case 'workspace.inspected':
      return `HEAD ${record.data.head.slice(0, 7)}, ${record.data.commits.length} commit(s) since base, ${record.data.changedFiles.length} uncommitted${record.data.remote ? `, ${record.data.remote.remote}/${record.data.remote.branch} at ${record.data.remote.sha.slice(0, 7)}` : ''} (${Math.round(record.data.durationMs)} ms)`;
    case 'context.written':
      return record.data.path;
    case 'harness.skipped':
      return record.data.utilization === undefined
        ? `${record.data.harness} skipped: out of quota until ${record.data.until}${record.data.known === false ? ' (estimated)' : ''}`
        : `${record.data.harness} skipped: ${percent(record.data.utilization)} of its limit used (switchAtUtilization ${percent(record.data.threshold)})`;
    case 'quota.waiting':
      return `every harness is out of quota: waiting for ${record.data.harness}, which resets at ${record.data.until}${record.data.known ? '' : ' (estimated)'} (${Math.round(record.data.waitMs / 60_000)} min)`;
    case 'wait.ended':
      if (record.data.reason === 'switched') return 'a switch by hand ends the wait';
      return record.data.reason === 'reset'
        ? `${record.data.harness} has reset: carrying on`
        : `resumed by hand before the reset: carrying on, on ${record.data.harness}`;
    case 'gate.denied':
      return `${record.data.gate} refused ${record.data.tool}: ${record.data.message}`;
    case 'gate.failed':
      return `${record.data.gate} failed on ${record.data.event}${record.data.tool ? ` ${record.data.tool}` : ''} (${record.data.decision} instead): ${record.data.error}`;
    case 'gate.flagged':
      return `${record.data.gate} would have refused ${record.data.tool} (no hooks: seen after it ran): ${record.data.message}`;
    case 'gate.noted':
      return `${record.data.tool}: ${record.data.notes.join('; ')}`;
    case 'failover':
      return `${record.data.from} → ${record.data.to}${record.data.hand?.model ? ` (${record.data.hand.model})` : ''} (${switchWhy(record.data)}; switch ${record.data.switchNumber} of ${record.data.maxSwitches})`;
    case 'attempt.ended':
      return `${record.data.outcome}${record.data.message ? `: ${record.data.message}` : ''}`;
    case 'execution.ended':
      return `${record.data.state} after ${record.data.attempts} attempt(s)${record.data.message ? ` — ${record.data.message}` : ''}`;
  }
}

function mark(status: string): string {
  return status === 'completed' ? 'x' : status === 'in_progress' ? '~' : ' ';
}

/** `text` on one line: each run of whitespace (newlines too) one space. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Why a switch happened: who asked, the utilization past the threshold, or the outcome. */
function switchWhy(data: EventData<'failover'>): string {
  if (data.requestedBy !== undefined) return `asked by ${data.requestedBy}${data.note ? `: ${data.note}` : ''}`;
  if (data.utilization !== undefined) {
    return `${percent(data.utilization)} of its limit used, switchAtUtilization ${percent(data.threshold)}`;
  }
  return data.reason;
}

/** `96%`; `?` when unknown. */
function percent(share: number | undefined): string {
  return share === undefined ? '?' : `${Math.round(share * 100)}%`;
}
