/** Reading a benchmark's command-line options. */

/** The whole number (1 or more) after `name` on the command line, or `fallback` when `name` is absent; throws otherwise. */
export function option(name, fallback) {
  const index = process.argv.indexOf(name);
  if (index === -1) return fallback;
  const parsed = Number(process.argv[index + 1]);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name}: a whole number, 1 or more`);
  return parsed;
}
