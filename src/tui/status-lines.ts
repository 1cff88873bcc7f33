/**
 * The list screens' status under the table, pure: what goes wrong reaching the service, else the
 * filter being typed or kept, else a blank line. An error is the client's sentence — for a service
 * that is not running, where to start one and how to point at another (`--url`, `HARMFLOW_URL`) —
 * wrapped at the width on up to `MAX_ERROR_LINES` lines, so its hint fits an 80-column terminal
 * instead of being cut at its edge; the other statuses are one line (Ink cuts them).
 */
import { wrapText } from './detail/lines.js';
import type { Screen } from './rows.js';

/** 3: the client's longest sentence (no service at a URL, with the hint) takes 2 at 80 columns; a long URL may take a third. */
export const MAX_ERROR_LINES = 3;

export function statusLines(
  status: {
    readonly error: string | undefined;
    readonly editing: boolean;
    readonly filter: string;
    readonly screen: Screen;
  },
  width: number,
): string[] {
  if (status.error !== undefined) {
    const lines = wrapText(`Cannot reach the service: ${status.error}`, width);
    if (lines.length <= MAX_ERROR_LINES) return lines;
    const last = lines.slice(MAX_ERROR_LINES - 1).join(' ');
    return [
      ...lines.slice(0, MAX_ERROR_LINES - 1),
      `${Array.from(last)
        .slice(0, width - 1)
        .join('')}…`,
    ];
  }
  if (status.editing) {
    const what = status.screen === 'workflows' ? 'workflow, id, state or why' : 'task, id, state or harness';
    return [`/ ${status.filter}▏ (${what}; Enter keeps it, Esc leaves)`];
  }
  return [status.filter !== '' ? `/ ${status.filter}  (Esc clears)` : ' '];
}
