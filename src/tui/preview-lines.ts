/**
 * The split preview of the Executions and History screens, pure: from `SPLIT_MIN_WIDTH` columns the
 * list keeps the left part (`splitWidths`) and the selected execution's Summary — the detail view's
 * own text (detail/summary-lines.ts), under its whole id — fills the right, following the selection. Its record and
 * attempts are the list's row, so it shows with the row in the same frame; `context.json` and the
 * disk come after (use-preview.ts) and say `loading…` until then. A waiting execution's wait is its
 * latest attempt's reset, as the list's RESETS column says it.
 */
import type { ExecutionContext } from '../execution/context-schema.js';
import type { ExecutionDisk } from '../execution/execution-disk.js';
import type { Line } from './detail/lines.js';
import { summaryLines } from './detail/summary-lines.js';
import type { ListedExecution } from './rows.js';

/** 80: the preview, its `│ ` edge included, is as wide as the detail view in an 80-column terminal. */
export const PREVIEW_WIDTH = 80;

/** 160: room for the list as at 80 columns and the preview beside it. */
export const SPLIT_MIN_WIDTH = 80 + PREVIEW_WIDTH;

/**
 * The list's and the preview's widths in `width`: no preview below `SPLIT_MIN_WIDTH`; from it, the
 * preview takes `PREVIEW_WIDTH` and the list the rest, so a wider terminal widens the list (and its
 * extra columns come, list-columns.ts), not the preview.
 */
export function splitWidths(width: number): { readonly list: number; readonly preview: number } {
  return width < SPLIT_MIN_WIDTH
    ? { list: width, preview: 0 }
    : { list: width - PREVIEW_WIDTH, preview: PREVIEW_WIDTH };
}

/** What the preview knows beyond the row; `undefined` while it loads, the Error when reading it failed. */
export interface PreviewData {
  readonly context: ExecutionContext | Error | undefined;
  readonly disk: ExecutionDisk | Error | undefined;
}

/** The preview of `row` in `width` columns: its whole id, then its Summary. */
export function previewLines(row: ListedExecution, data: PreviewData, width: number, now: Date): Line[] {
  const waitedOn =
    row.state === 'waiting' ? row.attempts.findLast((attempt) => attempt.resetsAt !== undefined) : undefined;
  return [
    { text: `${row.id} · Enter opens it`, tone: 'muted' },
    ...summaryLines(
      {
        execution: row,
        attempts: row.attempts,
        context: data.context,
        disk: data.disk,
        wait:
          waitedOn?.resetsAt === undefined
            ? undefined
            : { harness: waitedOn.harness, until: waitedOn.resetsAt, known: true },
        now,
      },
      width,
    ),
  ];
}
