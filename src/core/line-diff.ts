/**
 * A line diff for people: the lines of `before` and `after` in order, each marked kept (`  `),
 * removed (`- `) or added (`+ `), from a longest common subsequence of lines. Quadratic in the line
 * counts: meant for what a reviewer reads (a statement, a short JSON value), not for files.
 */
export function lineDiff(before: readonly string[], after: readonly string[]): string[] {
  // common[i][j]: the length of the longest common subsequence of before[i..] and after[j..].
  const common = Array.from({ length: before.length + 1 }, () => new Array<number>(after.length + 1).fill(0));
  for (let i = before.length - 1; i >= 0; i -= 1) {
    const row = common[i] as number[];
    const below = common[i + 1] as number[];
    for (let j = after.length - 1; j >= 0; j -= 1) {
      row[j] =
        before[i] === after[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      lines.push(`  ${before[i]}`);
      i += 1;
      j += 1;
    } else if (i < before.length && (j === after.length || (common[i + 1]?.[j] ?? 0) >= (common[i]?.[j + 1] ?? 0))) {
      // Of a replaced line, the removed one comes first.
      lines.push(`- ${before[i]}`);
      i += 1;
    } else {
      lines.push(`+ ${after[j]}`);
      j += 1;
    }
  }
  return lines;
}
