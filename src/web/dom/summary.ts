/**
 * The Summary tab: the task and where it works (repository, base, branch, worktree, and the disk its
 * worktree and run directory take, or when gc removed the worktree), the chain as it
 * ran — which attempt ran on which harness and how each ended, with tokens and cost — and the
 * execution's `context.json` as attempts × work items.
 */
import type { Api } from '../api.js';
import { type DescribedWorkItem, describeWorkItem } from '../describe-work-item.js';
import type { AttemptRecord, ExecutionDisk, ExecutionRecord } from '../records.js';
import { el, formatBytes, formatDuration, formatTokens, formatUsd } from './el.js';

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
): Promise<void> {
  const [disk, context] = await Promise.all([diskOf(api, execution.id), contextOf(api, execution.id)]);
  const facts: [string, string][] = [
    ['Task', execution.taskName],
    ['State', execution.state + (execution.message ? ` — ${execution.message}` : '')],
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
    el('dl', { class: 'facts' }, ...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)])),
    el('h2', {}, 'Chain'),
    chain,
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
    ...attempts.map((attempt, index) =>
      el(
        'section',
        {},
        el('h3', {}, `Attempt ${index + 1}: ${attempt.harness ?? '?'} — ${attempt.outcome ?? '?'}`),
        attempt.lastMessage ? el('p', {}, attempt.lastMessage) : null,
        el('ul', {}, ...(attempt.workItems ?? []).map((item) => el('li', {}, describeWorkItem(item)))),
      ),
    ),
  );
}
