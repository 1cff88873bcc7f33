/** Parses a calendar date `YYYY-MM-DD` into a UTC Date; throws on anything else. */
export function parseDate(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) throw new Error(`not a date: ${text}`);
  const [, year, month, day] = match.map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) throw new Error(`not a date: ${text}`);
  return date;
}
