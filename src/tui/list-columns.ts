/**
 * Which columns the Executions and History tables show in a given width, and how wide each is, pure.
 * The columns that fit 80 columns always show (id, task, state, harness, attempts, age); a wider
 * table adds, in this order, as many of how long it ran, its tokens, its cost, (Executions only: an
 * ended execution waits for nothing) when its wait's harness resets, the turns it completed, its
 * pull request and (Executions only: an ended one has no driver) the pid and host that drive it as
 * fit while the task keeps `TASK_MIN` columns. What is left after them goes to the task, whose name
 * then shows whole.
 */
import type { Cells, ExecutionScreen, WideCells } from './rows.js';

/** A column: the cell it shows (`wide`: one of those a wider table adds), its title, and its width (a trailing space included). */
export type Column = { readonly title: string; readonly width: number } & (
  | { readonly wide: false; readonly cell: Exclude<keyof Cells, 'task'> }
  | { readonly wide: true; readonly cell: keyof WideCells }
);

/** The marker column (`›` on the selected row). */
export const MARKER_WIDTH = 2;

/**
 * 30: what the task keeps at 80 columns (80 less the marker and the fixed columns' 48), so an 80×24
 * terminal shows what it did; the extra columns come with the width beyond it.
 */
export const TASK_MIN = 30;

/** The columns either side of the task, as at 80 columns. History's harness column holds a chain (`claude-code→codex`). */
function baseColumns(screen: ExecutionScreen): { before: Column[]; after: Column[] } {
  const executions = screen === 'executions';
  return {
    before: [{ wide: false, cell: 'id', title: 'ID', width: 15 }],
    after: [
      { wide: false, cell: 'state', title: executions ? 'STATE' : 'OUTCOME', width: 10 },
      { wide: false, cell: 'harness', title: executions ? 'HARNESS' : 'HARNESSES', width: executions ? 12 : 18 },
      { wide: false, cell: 'attempts', title: 'ATT', width: 4 },
      { wide: false, cell: 'age', title: 'AGE', width: 5 },
    ],
  };
}

/**
 * The extra columns, most useful first. Widths hold their longest usual value and a space: `1h02m`
 * under `ELAPSED`, `123.4k`, `$12.34`, `Mar 12, 14:05`, `TURNS`, `#12345`, and a pid with a short
 * host name (`4194304@build-runner-1`; a longer one is cut).
 */
function extraColumns(screen: ExecutionScreen): Column[] {
  return [
    { wide: true, cell: 'elapsed', title: 'ELAPSED', width: 8 },
    { wide: true, cell: 'tokens', title: 'TOKENS', width: 8 },
    { wide: true, cell: 'cost', title: 'COST', width: 8 },
    ...(screen === 'executions' ? [{ wide: true, cell: 'resets', title: 'RESETS', width: 14 } as const] : []),
    { wide: true, cell: 'turns', title: 'TURNS', width: 6 },
    { wide: true, cell: 'pr', title: 'PR', width: 7 },
    ...(screen === 'executions' ? [{ wide: true, cell: 'owner', title: 'OWNER', width: 23 } as const] : []),
  ];
}

/** The columns of a table `width` wide, in order, `'task'` standing for the task's, which takes the rest. */
export function columnsFor(screen: ExecutionScreen, width: number): readonly (Column | 'task')[] {
  const { before, after } = baseColumns(screen);
  let room = width - MARKER_WIDTH - [...before, ...after].reduce((sum, column) => sum + column.width, 0) - TASK_MIN;
  const extras: Column[] = [];
  for (const column of extraColumns(screen)) {
    if (column.width > room) break;
    extras.push(column);
    room -= column.width;
  }
  return [...before, 'task', ...after, ...extras];
}
