/** Sizes for people. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `512 MiB`, `12.3 GiB`, `0 B`: binary units, one decimal below 100, whole numbers above. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 || value >= 100 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
}
