/** @jsxImportSource react */
/**
 * The Executions and History screens' table (Workflows has its own, run-list-view.tsx): a header
 * line and one line per execution, the selected one marked `›` (and shown inverse with color). The
 * columns are those `width` has room for (list-columns.ts); each cell is cut to its column (Ink's
 * `truncate-end`), the task taking what the others leave, so no line is wider than `width`. Shows
 * the window of `height` rows that holds the selection (row-line.tsx). Stateless: the app owns rows,
 * selection and size.
 */
import { type Column, columnsFor, MARKER_WIDTH } from './list-columns.js';
import { type LineCell, type ListFrameProps, RowLine, RowWindow } from './row-line.js';
import { cellsOf, type ExecutionScreen, type ListedExecution, type WideCells, wideCellsOf } from './rows.js';
import { stateColor } from './theme.js';

export interface ListViewProps extends ListFrameProps<ListedExecution> {
  readonly screen: ExecutionScreen;
}

export function ListView(props: ListViewProps) {
  const { screen, rows, selected, width, height, now, color } = props;
  const columns = columnsFor(screen, width);
  const header = (column: Column | 'task'): LineCell =>
    column === 'task' ? { text: 'TASK' } : { text: column.title, width: column.width };
  return (
    <RowWindow
      rows={rows}
      selected={selected}
      width={width}
      height={height}
      emptyText={props.emptyText}
      header={
        <RowLine
          marker=""
          markerWidth={MARKER_WIDTH}
          width={width}
          color={color}
          bold={color}
          cells={columns.map(header)}
        />
      }
      line={(row, marker) => (
        <RowLine
          marker={marker}
          markerWidth={MARKER_WIDTH}
          width={width}
          color={color}
          bold={false}
          cells={rowCells(columns, row, screen, now, stateColor(row.state, color))}
        />
      )}
    />
  );
}

/** A row's cells in the columns' order, its state coloured; the wider table's computed only when it shows them. */
function rowCells(
  columns: readonly (Column | 'task')[],
  row: ListedExecution,
  screen: ExecutionScreen,
  now: number,
  state: string | undefined,
): LineCell[] {
  const cells = cellsOf(row, screen, now);
  let wide: WideCells | undefined;
  const wideOf = (): WideCells => {
    wide ??= wideCellsOf(row, now);
    return wide;
  };
  return columns.map((column) => {
    if (column === 'task') return { text: cells.task };
    const text = column.wide ? wideOf()[column.cell] : cells[column.cell];
    return { text, width: column.width, ...(column.cell === 'state' && { color: state }) };
  });
}
