/** @jsxImportSource react */
/**
 * The Executions and History screens' table (Workflows has its own, run-list-view.tsx): a header
 * line and one line per execution, the selected one marked `›` (and shown inverse with color). Each
 * cell is cut to its column (Ink's `truncate-end`), the task taking what the fixed columns leave, so
 * no line is wider than `width`. Shows the window of `height` rows that holds the selection
 * (row-line.tsx). Stateless: the app owns rows, selection and size.
 */
import { type ListFrameProps, RowLine, RowWindow } from './row-line.js';
import { type Cells, cellsOf, type ExecutionScreen, type ListedExecution } from './rows.js';
import { stateColor } from './theme.js';

/** Column widths, a trailing space included; the task takes the rest. History's harness column holds a chain (`claude-code→codex`). */
const WIDTHS = {
  marker: 2,
  id: 15,
  state: 10,
  harness: { executions: 12, history: 18 },
  attempts: 4,
  age: 5,
} as const;

export interface ListViewProps extends ListFrameProps<ListedExecution> {
  readonly screen: ExecutionScreen;
}

export function ListView(props: ListViewProps) {
  const { screen, rows, selected, width, height, now, color } = props;
  const header: Cells = {
    id: 'ID',
    task: 'TASK',
    state: screen === 'executions' ? 'STATE' : 'OUTCOME',
    harness: screen === 'executions' ? 'HARNESS' : 'HARNESSES',
    attempts: 'ATT',
    age: 'AGE',
  };
  return (
    <RowWindow
      rows={rows}
      selected={selected}
      width={width}
      height={height}
      emptyText={props.emptyText}
      header={<Line width={width} screen={screen} cells={header} marker="" color={color} bold={color} />}
      line={(row, marker) => (
        <Line
          width={width}
          screen={screen}
          cells={cellsOf(row, screen, now)}
          marker={marker}
          color={color}
          bold={false}
          stateColor={stateColor(row.state, color)}
        />
      )}
    />
  );
}

function Line(props: {
  width: number;
  screen: ExecutionScreen;
  cells: Cells;
  marker: string;
  color: boolean;
  bold: boolean;
  stateColor?: string | undefined;
}) {
  const { cells, screen } = props;
  return (
    <RowLine
      marker={props.marker}
      markerWidth={WIDTHS.marker}
      width={props.width}
      color={props.color}
      bold={props.bold}
      cells={[
        { text: cells.id, width: WIDTHS.id },
        { text: cells.task },
        { text: cells.state, width: WIDTHS.state, color: props.stateColor },
        { text: cells.harness, width: WIDTHS.harness[screen] },
        { text: cells.attempts, width: WIDTHS.attempts },
        { text: cells.age, width: WIDTHS.age },
      ]}
    />
  );
}
