/**
 * The statistics every benchmark reports: the median (the middle value; the mean of the two middle
 * ones for an even count), a summary `{ median, min, max, n }`, and figures rounded to two decimals.
 */

/** The median of `values`. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `{ median, min, max, n }` of `values`, each rounded to two decimals. */
export function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: round(median(values)), min: round(sorted[0]), max: round(sorted.at(-1)), n: values.length };
}

/** `value` rounded to two decimals. */
export function round(value) {
  return Math.round(value * 100) / 100;
}
