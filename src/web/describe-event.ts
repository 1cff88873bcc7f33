/**
 * One line about an event record, for the Events timeline: what happened, with the harnesses it
 * names — `switch 1/2: claude-code → codex (quota_exhausted)`. DOM-free, so it is unit-tested in
 * Node; the Workbench's timeline (dom/timeline.ts) and the terminal UI's show it beside the record's
 * time, attempt and harness. What the record observed is said as observed: a failed operation with
 * its exit code and the line that says why, a `workspace.warning` marked `⚠` and never cut. The CLI's
 * timeline (src/cli/timeline.ts) takes its words for `workspace.warning` and `gate.allowed` from
 * here, and leaves out what `isRoutine` names; its other words are still its own.
 */
import { describeOperation } from './describe-operation.js';
import { UNCONFIRMED_MARK } from './describe-work-item.js';
import type { EventRecord } from './records.js';

/** 160 characters: a timeline row stays one or two lines; Enter opens the whole record. */
const MAX_CHARS = 160;

export function describeEvent(record: EventRecord): string {
  const d = record.data;
  const text = (key: string): string | undefined => (typeof d[key] === 'string' ? (d[key] as string) : undefined);
  const number = (key: string): number | undefined => (typeof d[key] === 'number' ? (d[key] as number) : undefined);
  switch (record.type) {
    case 'execution.started':
      return clip(`${text('task') ?? 'task'} on ${text('branch') ?? '?'}; chain ${chainOf(d.chain)}`);
    case 'attempt.started':
      return `attempt ${record.attempt ?? '?'} on ${record.harness ?? '?'}${d.handoff === true ? ', with the handoff' : ''}${d.simulated === true ? ' (simulated)' : ''}${sandboxWords(typeof d.sandboxed === 'boolean' ? d.sandboxed : undefined)}`;
    case 'quota.exhausted':
      return `${record.harness ?? 'the harness'} is out of quota${text('resetsAt') ? `; resets at ${text('resetsAt')}` : ''}`;
    case 'failover':
      return clip(
        `switch ${number('switchNumber') ?? '?'}/${number('maxSwitches') ?? '?'}: ${text('from') ?? '?'} → ${text('to') ?? '?'} (${switchWhy(text, number)})`,
      );
    case 'switch.requested':
      return clip(
        `${text('by') ?? 'someone'} asks to switch to ${text('harness') ?? '?'}${text('model') ? ` (${text('model')})` : ''}${text('reason') ? `: ${text('reason')}` : ''}`,
      );
    case 'attempt.ended':
      return clip(
        `attempt ${record.attempt ?? '?'} on ${record.harness ?? '?'} ended: ${text('outcome') ?? '?'}${text('message') ? ` — ${text('message')}` : ''}`,
      );
    case 'turn.started':
      return clip(`turn ${text('delivery') ?? ''}: ${text('text') ?? ''}`);
    case 'turn.redelivered':
      return clip(`turn delivered again: ${text('reason') ?? ''}`);
    case 'message.queued':
      return clip(`message queued: ${text('text') ?? ''}`);
    case 'message':
      return clip(text('text') ?? '');
    case 'tool.call':
      return clip(
        `${text('name') ?? 'tool'} ${text('shell') ?? (Array.isArray(d.files) ? d.files.join(', ') : '')}`.trim(),
      );
    case 'tool.result':
      return `${d.ok === true ? 'ok' : 'failed'}${number('exitCode') !== undefined ? ` (exit ${number('exitCode')})` : ''}`;
    case 'harness.skipped':
      return number('utilization') === undefined
        ? `${text('harness') ?? '?'} skipped: out of quota until ${text('until') ?? '?'}${d.known === false ? ' (estimated)' : ''}`
        : `${text('harness') ?? '?'} skipped: ${percent(number('utilization'))} of its limit used (switchAtUtilization ${percent(number('threshold'))})`;
    case 'quota.waiting':
      return `every harness is out of quota: waiting for ${text('harness') ?? '?'}, which resets at ${text('until') ?? '?'}`;
    case 'wait.ended':
      if (text('reason') === 'switched') return 'a switch by hand ends the wait';
      return text('reason') === 'resumed'
        ? `resumed by hand before the reset: carrying on, on ${text('harness') ?? '?'}`
        : `${text('harness') ?? '?'} has reset: carrying on`;
    case 'gate.denied':
      return clip(`gate ${text('gate') ?? '?'} refused ${text('tool') ?? 'a call'}: ${text('message') ?? ''}`);
    case 'gate.flagged':
      return clip(
        `gate ${text('gate') ?? '?'} would have refused ${text('tool') ?? 'a call'} (seen after it ran): ${text('message') ?? ''}`,
      );
    case 'gate.failed':
      return clip(
        `gate ${text('gate') ?? '?'} failed on ${text('event') ?? '?'} (${text('decision') ?? '?'} instead): ${text('error') ?? ''}`,
      );
    case 'operation':
      return clip(describeOperation(d));
    case 'workspace.warning':
      // Never cut: it is what the record must not pass over, and there are few.
      return flat(describeWorkspaceWarning(text('kind'), text('message') ?? ''));
    case 'gate.allowed': {
      const notes = strings(d.notes);
      return clip(`gates allowed ${text('tool') ?? 'a call'}${notes.length > 0 ? ` — ${notes.join('; ')}` : ''}`);
    }
    case 'gate.noted':
      return clip(`${text('tool') ?? 'a call'}: ${strings(d.notes).join('; ')}`);
    case 'usage':
      return `${number('inputTokens') ?? 0} tokens in, ${number('outputTokens') ?? 0} out${number('costUsd') !== undefined ? `, $${(number('costUsd') as number).toFixed(4)}` : ''}`;
    case 'session.started':
      return `session ${text('sessionId') ?? '?'}${text('model') ? ` on ${text('model')}` : ''}`;
    case 'turn.ended':
      return `turn ${text('turn') ?? '?'} ended: ${text('outcome') ?? '?'}${number('durationMs') !== undefined ? ` after ${seconds(number('durationMs') as number)}` : ''}`;
    case 'result':
      return clip(`${d.ok === true ? 'done' : 'failed'}${text('message') ? `: ${text('message')}` : ''}`);
    case 'harness.error':
      return clip(`${d.fatal === true ? 'fatal: ' : ''}${text('message') ?? ''}`);
    case 'warning':
      return clip(text('message') ?? '');
    case 'rate_limit':
      return clip(
        `${text('status') ?? '?'}${number('utilization') !== undefined ? `, ${percent(number('utilization'))} used` : ''}${text('resetsAt') ? `; resets at ${text('resetsAt')}` : ''}`,
      );
    case 'retry':
      return clip(
        `retry ${number('attempt') ?? '?'}${number('maxRetries') !== undefined ? `/${number('maxRetries')}` : ''}${text('reason') ? `: ${text('reason')}` : ''}`,
      );
    case 'plan':
      return Array.isArray(d.items) ? `plan of ${d.items.length} item(s)` : 'plan';
    case 'workspace.inspected': {
      const files = Array.isArray(d.changedFiles) ? d.changedFiles.length : 0;
      const commits = Array.isArray(d.commits) ? d.commits.length : 0;
      return `head ${(text('head') ?? '?').slice(0, 12)}, ${commits} commit(s) since the base, ${files} uncommitted file(s)`;
    }
    case 'context.written':
      return `context.json written (${number('attempts') ?? '?'} attempt(s))`;
    case 'execution.reopened':
      return `reopened by a follow-up${text('resumedSession') ? `, resuming session ${text('resumedSession')}` : ''}`;
    case 'execution.resumed':
      return `carried on after a restart${number('openAttempt') !== undefined ? ` (attempt ${number('openAttempt')} was left open)` : ''}`;
    case 'cancel.requested':
      return `cancel asked; the harness has ${seconds(number('budgetMs') ?? 0)} to stop`;
    case 'raw':
      return clip(`${text('stream') ?? 'stdout'}: ${text('line') ?? ''}`);
    case 'execution.ended':
      return clip(
        `${text('state') ?? '?'} after ${number('attempts') ?? '?'} attempt(s)${text('message') ? ` — ${text('message')}` : ''}`,
      );
    default:
      return clip(JSON.stringify(d));
  }
}

/**
 * Records there is one of for each tool call and that say nothing the call's own records do not: a
 * `gate.allowed` without notes (the gates let the call through and had nothing to add). The CLI's
 * timeline leaves them out; the Workbench and the terminal UI keep them, muted, as rows the filter
 * and `Enter` reach.
 */
export function isRoutine(record: Pick<EventRecord, 'type' | 'data'>): boolean {
  return record.type === 'gate.allowed' && strings(record.data.notes).length === 0;
}

/**
 * A `workspace.warning` in words, marked so it stands out without colour: `⚠ every commit failed: …`,
 * `⚠ unconfirmed: git push … exited 0, but the remote does not hold it`.
 */
export function describeWorkspaceWarning(kind: string | undefined, message: string): string {
  return kind === 'unconfirmed' ? `${UNCONFIRMED_MARK}: ${message}` : `⚠ ${message}`;
}

/** The words of an end message that carries the warning of an execution whose every commit failed. */
const COMMITS_FAILED = ', but every commit failed: ';

/**
 * An execution's end message (`completed, but every commit failed: …`) split into what it says of
 * the end and the warning it carries (`every commit failed: …`, the `workspace.warning` of kind
 * `commits_failed` the engine recorded before it ended), so a surface can show the warning apart.
 */
export function splitEndMessage(message: string | undefined): { readonly message?: string; readonly warning?: string } {
  if (message === undefined || message === '') return {};
  const at = message.indexOf(COMMITS_FAILED);
  if (at < 0) return { message };
  const before = message.slice(0, at);
  const warning = message.slice(at + ', but '.length);
  return before === '' ? { warning } : { message: before, warning };
}

/**
 * An execution's state as a Summary shows it — `succeeded — completed`, its end message after the
 * state unless it only repeats it — and the warning its end message carries, to be shown apart.
 */
export function describeEnd(
  state: string,
  message: string | undefined,
): { readonly state: string; readonly warning?: string } {
  const end = splitEndMessage(message);
  const said = end.message !== undefined && end.message !== state ? ` — ${end.message}` : '';
  return { state: `${state}${said}`, ...(end.warning !== undefined && { warning: end.warning }) };
}

/** The strings of an array field; none when it is not one. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((each): each is string => typeof each === 'string') : [];
}

function chainOf(chain: unknown): string {
  return Array.isArray(chain) ? chain.join(' → ') : '?';
}

function clip(line: string): string {
  const one = flat(line);
  return one.length <= MAX_CHARS ? one : `${one.slice(0, MAX_CHARS - 1)}…`;
}

/** `line` on one line: its runs of white space, newlines included, one space. */
function flat(line: string): string {
  return line.replace(/\s+/g, ' ').trim();
}

/** Why a switch happened (a `failover` record): who asked, the utilization past the threshold, or the outcome. */
function switchWhy(text: (key: string) => string | undefined, number: (key: string) => number | undefined): string {
  const by = text('requestedBy');
  if (by !== undefined) return `asked by ${by}${text('note') ? `: ${text('note')}` : ''}`;
  const utilization = number('utilization');
  if (utilization !== undefined) {
    return `${percent(utilization)} of its limit used, switchAtUtilization ${percent(number('threshold'))}`;
  }
  return text('reason') ?? '?';
}

/** `96%`; `?` when unknown. */
function percent(share: number | undefined): string {
  return share === undefined ? '?' : `${Math.round(share * 100)}%`;
}

/** `12.3 s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** `attempt.started`'s `sandboxed` in words, for every timeline: nothing for records from before it existed. */
export function sandboxWords(sandboxed: boolean | undefined): string {
  if (sandboxed === undefined) return '';
  return sandboxed ? '; sandboxed' : '; NOT sandboxed';
}
