/**
 * The Summary tab: the warnings the execution's end carries (`every commit failed: …`), the task and
 * where it works (repository, base, branch, worktree, and the disk its worktree and run directory
 * take, or when gc removed the worktree), the chain as it ran — which attempt ran on which harness
 * and how each ended, with tokens and cost —, the harness sessions the attempts ran in and where the
 * next follow-up goes (routing.ts), and the execution's `context.json` as attempts × work
 * items. Each work item keeps what its harness reported (its plan's status, labelled as reported)
 * apart from what HarmFlow observed and what was tried and not done (describe-work-item.ts); an
 * unconfirmed item carries a `⚠ unconfirmed` badge in words, with its sentence.
 */
import type { Api } from '../api.js';
import { describeEnd } from '../describe-event.js';
import type { SessionRouting } from '../describe-routing.js';
import {
  type DescribedWorkItem,
  isUnconfirmed,
  lastMessageLabel,
  PART_LABELS,
  UNCONFIRMED_MARK,
  workItemParts,
} from '../describe-work-item.js';
import type { AttemptRecord, ExecutionDisk, ExecutionRecord } from '../records.js';
import { el, formatBytes, formatDuration, formatTokens, formatUsd } from './el.js';
import { renderRouting } from './routing.js';

interface Context {
  readonly attempts?: readonly {
    readonly harness?: string;
    readonly outcome?: string;
    readonly workItems?: readonly DescribedWorkItem[];
    readonly lastMessage?: string;
  }[];
}

export async function renderSummary(
  root: HTMLElement,
  api: Api,
  execution: ExecutionRecord,
  attempts: readonly AttemptRecord[],
  routing: SessionRouting | undefined,
): Promise<void> {
  const [disk, context] = await Promise.all([diskOf(api, execution.id), contextOf(api, execution.id)]);
  const end = describeEnd(execution.state, execution.message);
  const facts: [string, string][] = [
    ['Task', execution.taskName],
    ['State', end.state],
    ['Repository', execution.repo],
    ['Base', `${execution.baseRef} (${execution.baseSha.slice(0, 12)})`],
    ['Branch', execution.branch],
    ['Workspace', execution.worktree],
    ['Disk', disk],
    ['Deadline', new Date(execution.deadline).toLocaleString()],
  ];
  const chain = el(
    'table',
    { class: 'rows', 'aria-label': 'Attempts' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['#', 'Harness', 'Model', 'Duration', 'Outcome', 'Tokens', 'Cost'].map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    el(
      'tbody',
      {},
      ...attempts.map((attempt) =>
        el(
          'tr',
          {},
          el('td', { 'data-label': '#' }, String(attempt.number)),
          el('td', { 'data-label': 'Harness' }, attempt.harness + (attempt.simulated ? ' (simulated)' : '')),
          el('td', { 'data-label': 'Model' }, attempt.model ?? '–'),
          el(
            'td',
            { 'data-label': 'Duration' },
            attempt.endedAt === undefined
              ? 'running'
              : formatDuration(Date.parse(attempt.endedAt) - Date.parse(attempt.startedAt)),
          ),
          el('td', { 'data-label': 'Outcome' }, attempt.outcome ?? '–'),
          el(
            'td',
            { 'data-label': 'Tokens' },
            formatTokens(
              attempt.inputTokens === undefined && attempt.outputTokens === undefined
                ? undefined
                : (attempt.inputTokens ?? 0) + (attempt.outputTokens ?? 0),
            ),
          ),
          el('td', { 'data-label': 'Cost' }, formatUsd(attempt.costUsd)),
        ),
      ),
    ),
  );
  root.replaceChildren(
    ...(end.warning === undefined
      ? []
      : [
          el(
            'section',
            { class: 'warnings', 'aria-label': 'Warnings' },
            el('p', { class: 'warning' }, el('strong', {}, '⚠ Warning: '), end.warning),
          ),
        ]),
    el('dl', { class: 'facts' }, ...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)])),
    el('h2', {}, 'Chain'),
    chain,
    ...renderRouting(routing),
    el('h2', {}, 'What each attempt did (context.json)'),
    context,
  );
}

/** `worktree 12.3 MiB · run directory 1.2 MiB`, or when gc removed the worktree; the error when unknown. */
async function diskOf(api: Api, id: string): Promise<string> {
  let disk: ExecutionDisk;
  try {
    disk = (await api.get(`/api/executions/${id}/disk`)) as ExecutionDisk;
  } catch (error) {
    return `unknown: ${(error as Error).message}`;
  }
  const worktree =
    disk.worktreeRemovedAt === undefined
      ? `worktree ${formatBytes(disk.worktreeBytes)}`
      : `worktree removed on ${new Date(disk.worktreeRemovedAt).toLocaleString()} by gc (the branch keeps its commits)`;
  return `${worktree} · run directory ${formatBytes(disk.runBytes)}`;
}

async function contextOf(api: Api, id: string): Promise<HTMLElement> {
  let context: Context;
  try {
    context = (await api.get(`/api/executions/${id}/context`)) as Context;
  } catch (error) {
    return el('p', { class: 'muted' }, (error as Error).message);
  }
  const attempts = context.attempts ?? [];
  if (attempts.length === 0) return el('p', { class: 'muted' }, 'No attempt has ended yet.');
  return el(
    'div',
    {},
    el(
      'p',
      { class: 'muted' },
      'For each work item: what its harness reported in its plan (its word, not checked), what HarmFlow observed (exit codes, the branch, the remote), and what was tried and not done.',
    ),
    ...attempts.map((attempt, index) =>
      el(
        'section',
        {},
        el('h3', {}, `Attempt ${index + 1}: ${attempt.harness ?? '?'} — ${attempt.outcome ?? '?'}`),
        attempt.lastMessage
          ? el(
              'p',
              { class: 'last-message' },
              el('span', { class: 'label' }, `${lastMessageLabel(attempt.harness ?? 'the harness')}: `),
              attempt.lastMessage,
            )
          : null,
        el('ul', { class: 'work-items' }, ...(attempt.workItems ?? []).map(workItem)),
      ),
    ),
  );
}

/**
 * One work item: its text, a `⚠ unconfirmed` badge when it is (in words, named for assistive
 * technology), and its parts as a small definition list — reported, unconfirmed, observed, tried.
 */
function workItem(item: DescribedWorkItem): HTMLElement {
  const parts = workItemParts(item);
  const unconfirmed = isUnconfirmed(item);
  const rows: [string, string, Node | string][] = [
    ...(parts.reported !== undefined
      ? [['reported', PART_LABELS.reported, parts.reported] as [string, string, string]]
      : []),
    ...(parts.unconfirmed !== undefined
      ? [['unconfirmed', PART_LABELS.unconfirmed, parts.unconfirmed] as [string, string, string]]
      : []),
    ...(parts.observed.length > 0
      ? [['observed', PART_LABELS.observed, list(parts.observed)] as [string, string, Node]]
      : []),
    ...(parts.tried.length > 0 ? [['tried', PART_LABELS.tried, list(parts.tried)] as [string, string, Node]] : []),
  ];
  return el(
    'li',
    {
      class: unconfirmed ? 'work-item unconfirmed' : 'work-item',
      'data-unconfirmed': unconfirmed ? 'true' : undefined,
    },
    el(
      'p',
      { class: 'item-head' },
      el('span', { class: 'item-text' }, parts.text),
      unconfirmed
        ? el(
            'span',
            {
              class: 'badge badge-unconfirmed',
              role: 'img',
              'aria-label': `Unconfirmed: ${parts.reported ?? 'reported'}, but ${parts.unconfirmed ?? ''}`,
              title: 'Reported completed, but HarmFlow did not see the evidence its words name',
            },
            UNCONFIRMED_MARK,
          )
        : null,
    ),
    rows.length === 0
      ? null
      : el(
          'dl',
          { class: 'item-parts' },
          ...rows.flatMap(([name, label, value]) => [
            el('dt', { class: name }, label),
            el('dd', { class: name }, value),
          ]),
        ),
  );
}

/** One entry: its text; several: a list. */
function list(texts: readonly string[]): Node | string {
  return texts.length === 1 ? (texts[0] ?? '') : el('ul', {}, ...texts.map((text) => el('li', {}, text)));
}
