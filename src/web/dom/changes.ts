/**
 * The Changes tab: the files the execution changed against its base — committed on its branch or
 * left uncommitted in its worktree — and the unified diff, added lines green and removed red
 * (`GET /api/executions/:id/changes`). Loaded when the tab is first opened, and again on each visit.
 */
import type { Api } from '../api.js';
import { el } from './el.js';

interface Changes {
  readonly base: string;
  readonly files: readonly {
    readonly path: string;
    readonly status: string;
    readonly from?: string;
    readonly additions: number;
    readonly deletions: number;
    readonly binary?: boolean;
  }[];
  readonly diff: string;
  readonly truncated: boolean;
}

export async function renderChanges(root: HTMLElement, api: Api, execution: string): Promise<void> {
  let changes: Changes;
  try {
    changes = (await api.get(`/api/executions/${execution}/changes`)) as Changes;
  } catch (error) {
    root.replaceChildren(el('p', { class: 'muted' }, (error as Error).message));
    return;
  }
  if (changes.files.length === 0) {
    root.replaceChildren(el('p', { class: 'muted' }, `No change against ${changes.base.slice(0, 12)}.`));
    return;
  }
  const files = el(
    'ul',
    { 'aria-label': 'Changed files' },
    ...changes.files.map((file) =>
      el(
        'li',
        {},
        el('code', {}, file.from === undefined ? file.path : `${file.from} → ${file.path}`),
        ` ${file.status}, ${file.binary ? 'binary' : `+${file.additions} −${file.deletions}`}`,
      ),
    ),
  );
  const diff = el(
    'pre',
    { class: 'diff', tabindex: '0', 'aria-label': 'Diff' },
    ...changes.diff.split('\n').map((line) =>
      el(
        'span',
        {
          class:
            line.startsWith('+') && !line.startsWith('+++')
              ? 'add'
              : line.startsWith('-') && !line.startsWith('---')
                ? 'del'
                : undefined,
        },
        `${line}\n`,
      ),
    ),
  );
  root.replaceChildren(
    el('p', { class: 'muted' }, `${changes.files.length} file(s) changed against ${changes.base.slice(0, 12)}`),
    files,
    diff,
  );
  if (changes.truncated)
    root.append(el('p', { class: 'muted' }, 'The diff is cut here: it is longer than the service sends.'));
}
