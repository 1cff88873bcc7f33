/** @jsxImportSource react */
/**
 * The Workflows screen's table: a header line and one line per workflow run, the selected one marked
 * `›` (and shown inverse with color); the states that want someone (`waiting`, `interrupted`) bold in
 * their color. Each cell is cut to its column, why the run stopped or what it waits for taking what
 * the fixed columns leave, so no line is wider than `width`. Shows the window of `height` rows that
 * holds the selection. Stateless: the app owns rows, selection and size.
 */
import { type ListFrameProps, RowLine, RowWindow } from './row-line.js';
import { type ListedRun, type RunCells, runCellsOf, STANDOUT_STATES } from './run-rows.js';
import { stateColor } from './theme.js';

/** Column widths, a trailing space included; why takes the rest. 12 holds `interrupted`, 8 holds `59m ago`. */
const WIDTHS = { marker: 2, id: 15, workflow: 16, state: 12, started: 8 } as const;

export type RunListViewProps = ListFrameProps<ListedRun>;

export function RunListView(props: RunListViewProps) {
  const { rows, selected, width, height, now, color } = props;
  const header: RunCells = {
    id: 'ID',
    workflow: 'WORKFLOW',
    state: 'STATE',
    started: 'STARTED',
    why: 'WAITING FOR / WHY',
  };
  return (
    <RowWindow
      rows={rows}
      selected={selected}
      width={width}
      height={height}
      emptyText={props.emptyText}
      header={<RunLine width={width} cells={header} marker="" color={color} bold={color} />}
      line={(run, marker) => (
        <RunLine
          width={width}
          cells={runCellsOf(run, now)}
          marker={marker}
          color={color}
          bold={false}
          stateColor={stateColor(run.state, color)}
          standout={color && STANDOUT_STATES.includes(run.state)}
        />
      )}
    />
  );
}

function RunLine(props: {
  width: number;
  cells: RunCells;
  marker: string;
  color: boolean;
  bold: boolean;
  stateColor?: string | undefined;
  standout?: boolean;
}) {
  const { cells } = props;
  return (
    <RowLine
      marker={props.marker}
      markerWidth={WIDTHS.marker}
      width={props.width}
      color={props.color}
      bold={props.bold}
      cells={[
        { text: cells.id, width: WIDTHS.id },
        { text: cells.workflow, width: WIDTHS.workflow },
        { text: cells.state, width: WIDTHS.state, color: props.stateColor, bold: props.standout === true },
        { text: cells.started, width: WIDTHS.started },
        { text: cells.why },
      ]}
    />
  );
}
