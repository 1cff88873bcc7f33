/**
 * The one describer of events: an event record in one line of words, for every timeline — the
 * CLI's (`events`, `run`, the demo: src/cli/timeline.ts), the Workbench's (dom/timeline.ts) and the
 * terminal UI's (src/tui/detail/event-lines.ts): `changed src/slug.js`, `commit e2ad641 "Add
 * slugify"`, `claude-code → codex (quota_exhausted; switch 1 of 2)`. Each surface frames the line
 * with the record's time, attempt, harness and type, and owns its colour and its width: the line
 * comes whole, on one line (runs of white space, newlines included, one space), never cut.
 *
 * What the record observed is said as observed: a failed operation with its exit code and the line
 * that says why (describe-operation.ts), a `workspace.warning` marked `⚠`. A value the record does
 * not hold is `?`, never guessed. DOM-free and Node-free (the Workbench's bundle and the CLI's
 * start-time-critical `events` both load it); the data is read loosely, as the log held it, so a
 * record of a type this version does not know is shown as its data's JSON.
 */
import { describeOperation } from './describe-operation.js';
import { UNCONFIRMED_MARK } from './describe-work-item.js';
import type { EventRecord } from './records.js';

/** A record's data, read loosely: a field of the wrong type reads as absent. */
class Fields {
  constructor(readonly data: Readonly<Record<string, unknown>>) {}
  text(key: string): string | undefined {
    const value = this.data[key];
    return typeof value === 'string' ? value : undefined;
  }
  number(key: string): number | undefined {
    const value = this.data[key];
    return typeof value === 'number' ? value : undefined;
  }
  /** `text(key)` after `before` (`' (gpt-5)'`), or nothing when absent or empty. */
  after(before: string, key: string, end = ''): string {
    const value = this.text(key);
    return value ? `${before}${value}${end}` : '';
  }
}

type Describer = (d: Fields, record: EventRecord) => string;

/** How a turn reached the harness (`turn.started`'s `delivery`). */
const DELIVERY: Readonly<Record<string, string>> = {
  first: 'first delivery',
  handoff: 'handed on after a switch',
  redelivered: 'delivered again after a restart',
};

/** The words of each event type of src/events/schema.ts (test/web/describe-event.test.ts holds them to its list). */
const DESCRIBERS: Readonly<Record<string, Describer>> = {
  'execution.started': (d) =>
    `task ${d.text('task') ?? '?'} on ${d.text('branch') ?? '?'}; chain ${chainOf(d.data.chain)}${d.after('; deadline ', 'deadline')}`,
  'execution.resumed': (d) =>
    `carried on after a restart${d.number('openAttempt') !== undefined ? `; attempt ${d.number('openAttempt')} was left open` : ''}`,
  'execution.reopened': (d) =>
    `reopened by a follow-up${d.after(', resuming session ', 'resumedSession')}${d.data.worktreeRestored === true ? '; its worktree checked out again' : ''}`,
  'message.queued': (d) =>
    `${d.text('turn') ?? 'a turn'} queued (${d.number('queued') ?? '?'} waiting): ${d.text('text') ?? ''}`,
  'turn.started': (d) =>
    `${d.text('turn') ?? 'turn'} (${DELIVERY[d.text('delivery') ?? ''] ?? '?'}${d.text('resumedSession') ? `, resumes session ${d.text('resumedSession')?.slice(0, 8)}` : ''}): ${d.text('text') ?? ''}`,
  'turn.redelivered': (d) => `${d.text('turn') ?? 'turn'} delivered again: ${d.text('reason') ?? '?'}`,
  'turn.ended': (d) =>
    `${d.text('turn') ?? 'turn'} ended: ${d.text('outcome') ?? '?'}${d.number('durationMs') !== undefined ? ` after ${seconds(d.number('durationMs') as number)}` : ''}`,
  'cancel.requested': (d) =>
    `cancel asked; the harness has ${d.number('budgetMs') !== undefined ? seconds(d.number('budgetMs') as number) : '?'} to stop`,
  'switch.requested': (d) =>
    `${d.text('by') ?? 'someone'} asks to switch to ${d.text('harness') ?? '?'}${d.after(' (', 'model', ')')}${d.after(': ', 'reason')}`,
  'attempt.started': (d, record) =>
    `attempt ${record.attempt ?? '?'} on ${record.harness ?? '?'}${d.after(' (', 'model', ')')}${d.data.simulated === true ? ', simulated' : ''}${d.data.handoff === true ? ', given the handoff' : ''}${d.after(': ', 'command')}${d.number('timeLeftMs') !== undefined ? `; ${Math.round((d.number('timeLeftMs') as number) / 1000)} s left` : ''}${sandboxWords(typeof d.data.sandboxed === 'boolean' ? d.data.sandboxed : undefined)}`,
  'session.started': (d) => `session ${d.text('sessionId') ?? '?'}${d.after(' (', 'model', ')')}`,
  message: (d) => d.text('text') ?? '',
  'tool.call': (d) =>
    `${d.text('name') ?? 'tool'}: ${d.text('shell') ?? (Array.isArray(d.data.files) ? d.data.files.join(', ') : JSON.stringify(d.data.input ?? null))}`,
  'tool.result': (d) =>
    `${d.data.ok === true ? 'ok' : 'failed'}${d.number('exitCode') !== undefined ? ` (exit ${d.number('exitCode')})` : ''}`,
  plan: (d) =>
    Array.isArray(d.data.items)
      ? d.data.items.map((item) => planItem(new Fields(item as Record<string, unknown>))).join(' ')
      : 'plan',
  operation: (d) => describeOperation(d.data),
  usage: (d) =>
    `${d.number('inputTokens') ?? '?'} tokens in, ${d.number('outputTokens') ?? '?'} out${d.number('costUsd') !== undefined ? `, $${(d.number('costUsd') as number).toFixed(4)}` : ''}`,
  retry: (d) =>
    `retry ${d.number('attempt') ?? '?'}${d.number('maxRetries') !== undefined ? `/${d.number('maxRetries')}` : ''}${(d.text('reason') ?? d.text('message')) ? `: ${d.text('reason') ?? d.text('message')}` : ''}`,
  rate_limit: (d) =>
    `${d.text('status') ?? '?'}${d.after(' (', 'window', ')')}${d.number('utilization') !== undefined ? `, ${percent(d.number('utilization'))} used` : ''}${d.after('; resets at ', 'resetsAt')}`,
  'harness.error': (d) => `${d.data.fatal === true ? 'fatal: ' : ''}${d.text('message') ?? ''}`,
  result: (d) => `${d.data.ok === true ? 'done' : 'failed'}${d.after(': ', 'message')}`,
  warning: (d) => d.text('message') ?? '',
  raw: (d) => `${d.text('stream') ?? 'stdout'}: ${d.text('line') ?? ''}`,
  'quota.exhausted': (d, record) =>
    `${record.harness ?? 'the harness'} is out of quota${d.after('; resets at ', 'resetsAt')}${d.after(' — ', 'message')}`,
  'workspace.inspected': (d) => {
    const count = (key: string) => (Array.isArray(d.data[key]) ? d.data[key].length : '?');
    const remote = new Fields((d.data.remote ?? {}) as Record<string, unknown>);
    return `head ${(d.text('head') ?? '?').slice(0, 7)}, ${count('commits')} commit(s) since the base, ${count('changedFiles')} uncommitted file(s)${remote.text('remote') ? `, ${remote.text('remote')}/${remote.text('branch') ?? '?'} at ${(remote.text('sha') ?? '?').slice(0, 7)}` : ''}${d.number('durationMs') !== undefined ? ` (${Math.round(d.number('durationMs') as number)} ms)` : ''}`;
  },
  'context.written': (d) => `context.json written (${d.number('attempts') ?? '?'} attempt(s))${d.after(': ', 'path')}`,
  'workspace.warning': (d) => describeWorkspaceWarning(d.text('kind'), d.text('message') ?? ''),
  'harness.skipped': (d) =>
    d.number('utilization') === undefined
      ? `${d.text('harness') ?? '?'} skipped: out of quota until ${d.text('until') ?? '?'}${d.data.known === false ? ' (estimated)' : ''}`
      : `${d.text('harness') ?? '?'} skipped: ${percent(d.number('utilization'))} of its limit used (switchAtUtilization ${percent(d.number('threshold'))})`,
  'quota.waiting': (d) =>
    `every harness is out of quota: waiting for ${d.text('harness') ?? '?'}, which resets at ${d.text('until') ?? '?'}${d.data.known === false ? ' (estimated)' : ''}${d.number('waitMs') !== undefined ? ` (${Math.round((d.number('waitMs') as number) / 60_000)} min)` : ''}`,
  'wait.ended': (d) => {
    if (d.text('reason') === 'switched') return 'a switch by hand ends the wait';
    return d.text('reason') === 'resumed'
      ? `resumed by hand before the reset: carrying on, on ${d.text('harness') ?? '?'}`
      : `${d.text('harness') ?? '?'} has reset: carrying on`;
  },
  'gate.denied': (d) =>
    `gate ${d.text('gate') ?? '?'} refused ${d.text('tool') ?? 'a call'}: ${d.text('message') ?? ''}`,
  'gate.failed': (d) =>
    `gate ${d.text('gate') ?? '?'} failed on ${d.text('event') ?? '?'}${d.after(' ', 'tool')} (${d.text('decision') ?? '?'} instead): ${d.text('error') ?? ''}`,
  'gate.flagged': (d) =>
    `gate ${d.text('gate') ?? '?'} would have refused ${d.text('tool') ?? 'a call'} (no hooks: seen after it ran): ${d.text('message') ?? ''}`,
  'gate.noted': (d) => `${d.text('tool') ?? 'a call'}: ${strings(d.data.notes).join('; ')}`,
  'gate.allowed': (d) => {
    const notes = strings(d.data.notes);
    return `gates allowed ${d.text('tool') ?? 'a call'}${notes.length > 0 ? ` — ${notes.join('; ')}` : ''}`;
  },
  failover: (d) => {
    const hand = new Fields((d.data.hand ?? {}) as Record<string, unknown>);
    return `${d.text('from') ?? '?'} → ${d.text('to') ?? '?'}${hand.after(' (', 'model', ')')} (${switchWhy(d)}; switch ${d.number('switchNumber') ?? '?'} of ${d.number('maxSwitches') ?? '?'})`;
  },
  'attempt.ended': (d, record) =>
    `attempt ${record.attempt ?? '?'} on ${record.harness ?? '?'} ended: ${d.text('outcome') ?? '?'}${d.after(' — ', 'message')}`,
  'execution.ended': (d) =>
    `${d.text('state') ?? '?'} after ${d.number('attempts') ?? '?'} attempt(s)${d.after(' — ', 'message')}`,
};

/** The event types this describer has words for; any other is shown as its data's JSON. */
export const DESCRIBED_TYPES: readonly string[] = Object.keys(DESCRIBERS);

/** `record` in one whole line of words. */
export function describeEvent(record: EventRecord): string {
  const describer = Object.hasOwn(DESCRIBERS, record.type) ? DESCRIBERS[record.type] : undefined;
  return flat(describer === undefined ? JSON.stringify(record.data) : describer(new Fields(record.data), record));
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

/** A plan item as `[x] text` (completed), `[~] text` (in progress), `[ ] text`. */
function planItem(item: Fields): string {
  const status = item.text('status');
  return `[${status === 'completed' ? 'x' : status === 'in_progress' ? '~' : ' '}] ${item.text('text') ?? ''}`;
}

/** `line` on one line: its runs of white space, newlines included, one space. */
function flat(line: string): string {
  return line.replace(/\s+/g, ' ').trim();
}

/** Why a switch happened (a `failover` record): who asked, the utilization past the threshold, or the outcome. */
function switchWhy(d: Fields): string {
  const by = d.text('requestedBy');
  if (by !== undefined) return `asked by ${by}${d.after(': ', 'note')}`;
  const utilization = d.number('utilization');
  if (utilization !== undefined) {
    return `${percent(utilization)} of its limit used, switchAtUtilization ${percent(d.number('threshold'))}`;
  }
  return d.text('reason') ?? '?';
}

/** `96%`; `?` when unknown. */
function percent(share: number | undefined): string {
  return share === undefined ? '?' : `${Math.round(share * 100)}%`;
}

/** `12.3 s`; whole seconds without the decimal (`60 s`). */
function seconds(ms: number): string {
  return Number.isInteger(ms / 1000) ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** `attempt.started`'s `sandboxed` in words: nothing for records from before it existed. */
function sandboxWords(sandboxed: boolean | undefined): string {
  if (sandboxed === undefined) return '';
  return sandboxed ? '; sandboxed' : '; NOT sandboxed';
}
