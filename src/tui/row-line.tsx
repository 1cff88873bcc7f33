/** @jsxImportSource react */
/**
 * A list screen's table (list-view.tsx, run-list-view.tsx): the header line, then the window of
 * `height` rows that holds the selection (RowWindow); each line the marker column (`›` on the
 * selected row), then cells cut to their column widths — a cell without a width takes what the
 * others leave of the line's `width` — shown inverse on the selected row when colour is on (RowLine).
 * The screens say which cells, in which order, with which widths and colours.
 *
 * A line is one Ink `Text`, its cells cut and padded here and styled by nested `Text`s, rather than a
 * `Box` per cell laid out by Yoga: one layout node a line instead of 16, written in one piece, which
 * took about a fifth off the first frame's render (BENCHMARKS.md, issue 24). Widths count code
 * points, as the detail view's do (detail/lines.ts): a wide character (CJK, most emoji) pushes the
 * rest of its line right by one column each, and the line's own `truncate-end` keeps it in `width`.
 */
import { Box, Text } from 'ink';
import { Fragment, type ReactNode } from 'react';
import { fitLine, textWidth } from './detail/lines.js';

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
          .map((row, offset) => (
            <Fragment key={row.id}>{props.line(row, start + offset === selected ? '›' : '')}</Fragment>
          ))
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
  /** The whole line's width, the marker's column included. */
  readonly width: number;
  readonly color: boolean;
  /** Every cell bold (the header line). */
  readonly bold: boolean;
}) {
  const inverse = props.color && props.marker !== '';
  const fixed = props.cells.reduce((sum, cell) => sum + (cell.width ?? 0), 0);
  const rest = Math.max(0, props.width - props.markerWidth - fixed);
  return (
    <Text wrap="truncate-end">
      {props.marker.padEnd(props.markerWidth)}
      {props.cells.map((cell, index) => {
        const { shown, blank } = fitCell(cell.text, cell.width ?? rest);
        return (
          // The cells of a line are fixed by the screen: their order is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <Fragment key={index}>
            <Text
              bold={props.bold || cell.bold === true}
              inverse={inverse}
              {...(cell.color !== undefined && { color: cell.color })}
            >
              {shown}
            </Text>
            {blank}
          </Fragment>
        );
      })}
    </Text>
  );
}

/**
 * A cell's text in a column of `width`: cleaned and on one line, cut to leave the column's last place
 * blank (`…` ending what was cut), and the blanks that fill the column after it.
 */
function fitCell(text: string, width: number): { shown: string; blank: string } {
  if (width <= 1) return { shown: '', blank: ' '.repeat(Math.max(0, width)) };
  const shown = fitLine(text, width - 1);
  return { shown, blank: ' '.repeat(width - textWidth(shown)) };
}
