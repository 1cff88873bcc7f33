/**
 * The small formatters every screen shares — the Workbench's (dom/el.ts re-exports them) and the
 * terminal UI's detail view (src/tui/detail/) — for durations, tokens, bytes, disk, money and
 * times. DOM-free and Node-free, so both builds compile it and it is unit-tested in Node.
 */
import type { ExecutionDisk } from './records.js';

/** `1 h 02 min`, `4 min 05 s`, `12 s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
  if (minutes > 0) return `${minutes} min ${String(rest).padStart(2, '0')} s`;
  return `${rest} s`;
}

/** `12.3k` tokens; `–` when unknown. */
export function formatTokens(count: number | undefined): string {
  if (count === undefined) return '–';
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(1)}M`;
  if (count >= 1_000) return `${(count / 1_000).toFixed(1)}k`;
  return String(count);
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `512 MiB`, `12.3 GiB`, as the CLI writes them. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 || value >= 100 ? Math.round(value) : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/**
 * What a list row shows of an execution's disk: worktree and run directory together, marked
 * `(worktree removed)` once gc removed the worktree; `–` when unknown.
 */
export function formatDisk(disk: ExecutionDisk | undefined): string {
  if (disk === undefined) return '–';
  const size = formatBytes(disk.worktreeBytes + disk.runBytes);
  return disk.worktreeRemovedAt === undefined ? size : `${size} (worktree removed)`;
}

/** `$0.42`; `–` when unknown. */
export function formatUsd(usd: number | undefined): string {
  return usd === undefined ? '–' : `$${usd.toFixed(2)}`;
}

/** The local time of an ISO timestamp, `HH:MM:SS`. */
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour12: false });
}
