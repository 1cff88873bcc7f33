/**
 * Rows of cells as lines of aligned columns, for the CLI's plain tables (`workflow ls`, `workflow
 * effects`): each cell padded to its column's widest, two spaces between, no trailing spaces.
 */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [column, cell] of row.entries()) widths[column] = Math.max(widths[column] ?? 0, cell.length);
  }
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
