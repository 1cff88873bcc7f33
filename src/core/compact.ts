/** Small object helper for exactOptionalPropertyTypes code. */

/**
 * Copies the fields whose value is neither undefined nor null, so optional payload fields are
 * absent rather than undefined (exactOptionalPropertyTypes).
 */
export function compact<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: NonNullable<T[K]> } {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) kept[key] = value;
  }
  return kept as { [K in keyof T]?: NonNullable<T[K]> };
}
