/** @jsxImportSource react */
/**
 * A list screen's table (list-view.tsx, run-list-view.tsx): the header line, then the window of
 * `height` rows that holds the selection (RowWindow); each line the marker column (`›` on the
 * selected row), then cells cut to their column widths — a cell without a width takes what the
 * others leave — shown inverse on the selected row when colour is on (RowLine). The screens say which
 * cells, in which order, with which widths and colours.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';

/** What a list screen's table is given (the app owns all of it): its rows, the selection, its size. */
export interface ListFrameProps<Row> {
  readonly rows: readonly Row[];
  readonly selected: number;
  readonly width: number;
  /** Lines for rows, the header line not counted. */
  readonly height: number;
  readonly now: number;
  readonly color: boolean;
  readonly emptyText: string;
}

/** The header, then the rows in view — a window of `height` that holds row `selected` — or `emptyText`. */
export function RowWindow<Row extends { readonly id: string }>(props: {
  readonly rows: readonly Row[];
  readonly selected: number;
  readonly width: number;
  readonly height: number;
  readonly emptyText: string;
  readonly header: ReactNode;
  /** A row's line, `marker` being `›` on the selected one. */
  readonly line: (row: Row, marker: string) => ReactNode;
}) {
  const { rows, selected } = props;
  const visible = Math.max(1, props.height);
  const start = selected < visible ? 0 : selected - visible + 1;
  return (
    <Box flexDirection="column" width={props.width}>
      {props.header}
      {rows.length === 0 ? (
        <Text wrap="truncate-end">{`  ${props.emptyText}`}</Text>
      ) : (
        rows
          .slice(start, start + visible)
          .map((row, offset) => <Box key={row.id}>{props.line(row, start + offset === selected ? '›' : '')}</Box>)
      )}
    </Box>
  );
}

/** One cell: its text, its width (a trailing space included; none: the rest of the line), and its style. */
export interface LineCell {
  readonly text: string;
  readonly width?: number;
  readonly color?: string | undefined;
  readonly bold?: boolean;
}

export function RowLine(props: {
  readonly cells: readonly LineCell[];
  readonly marker: string;
  readonly markerWidth: number;
  readonly color: boolean;
  /** Every cell bold (the header line). */
  readonly bold: boolean;
}) {
  const inverse = props.color && props.marker !== '';
  return (
    <Box flexDirection="row">
      <Box width={props.markerWidth} flexShrink={0}>
        <Text>{props.marker}</Text>
      </Box>
      {props.cells.map((cell, index) => (
        <Box
          // The cells of a line are fixed by the screen: their order is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={index}
          width={cell.width}
          flexGrow={cell.width === undefined ? 1 : 0}
          flexShrink={cell.width === undefined ? 1 : 0}
          paddingRight={1}
        >
          <Text
            wrap="truncate-end"
            bold={props.bold || cell.bold === true}
            inverse={inverse}
            {...(cell.color !== undefined && { color: cell.color })}
          >
            {cell.text}
          </Text>
        </Box>
      ))}
    </Box>
  );
}
