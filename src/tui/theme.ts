/**
 * Color in the terminal UI. chalk (Ink's colorizer) follows `FORCE_COLOR` and whether stdout is a
 * terminal, but not `NO_COLOR` (chalk 5.6.2's supports-color reads no such variable), so the app
 * honors it itself: with `NO_COLOR` set to anything but the empty string (no-color.org), the
 * components pass no color, bold or inverse at all, and every distinction they draw is also in the
 * text (the `›` of the selected row, the `[ ]` around the current screen). Pure.
 */

/** False when `NO_COLOR` asks for no color. */
export function colorEnabled(env: NodeJS.ProcessEnv): boolean {
  const noColor = env.NO_COLOR;
  return noColor === undefined || noColor === '';
}

/**
 * Ink's color names for the execution states, and the workflow runs' own (`interrupted`: its process
 * is gone; `crashed`: stopped on an error it may resume from), as the Workbench's stylesheet tells
 * them apart.
 */
const STATE_COLORS: Readonly<Record<string, string>> = {
  queued: 'blue',
  running: 'green',
  waiting: 'yellow',
  succeeded: 'green',
  failed: 'red',
  timed_out: 'red',
  canceled: 'gray',
  interrupted: 'yellow',
  crashed: 'yellow',
};

/** The state's color, or undefined (the terminal's own) without color or for a state not listed. */
export function stateColor(state: string, color: boolean): string | undefined {
  return color ? STATE_COLORS[state] : undefined;
}

/** How a line of an opened execution's text looks (the tones of detail/lines.ts); nothing without color. */
export function toneStyle(
  tone: string | undefined,
  color: boolean,
): { color?: string; bold?: boolean; dimColor?: boolean } {
  if (!color || tone === undefined) return {};
  return TONE_STYLES[tone] ?? {};
}

const TONE_STYLES: Readonly<Record<string, { color?: string; bold?: boolean; dimColor?: boolean }>> = {
  heading: { bold: true },
  muted: { dimColor: true },
  add: { color: 'green' },
  del: { color: 'red' },
  switch: { color: 'yellow' },
  user: { color: 'cyan' },
  assistant: { bold: true },
  error: { color: 'red' },
  ok: { color: 'green' },
  warn: { color: 'yellow', bold: true },
};
