/**
 * Naming a process so that a file can say who holds something (an execution's owner file, a lock
 * file) and a later reader can tell whether that holder still runs: `<pid> <start time>`, the start
 * time telling a recycled pid from the process that wrote the line. It names a process of this
 * machine only.
 */
import { readFileSync } from 'node:fs';

/**
 * A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); `0` where there
 * is no /proc (then only the pid is compared); undefined when there is no such process.
 */
function startTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return '0';
    try {
      process.kill(pid, 0);
      return '0';
    } catch (signalError) {
      // EPERM: the process exists but belongs to another user.
      return (signalError as NodeJS.ErrnoException).code === 'EPERM' ? '0' : undefined;
    }
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '0';
}

/** This process as `<pid> <start time>`. */
export function thisProcess(): string {
  return `${process.pid} ${startTime(process.pid) ?? '0'}`;
}

/** True when a line that starts `<pid> <start time>` names a process that is still running. */
export function stillRunning(line: string): boolean {
  const [pid, start] = line.trim().split(' ');
  const number = Number(pid);
  if (!Number.isSafeInteger(number) || number <= 0) return false;
  const now = startTime(number);
  return now !== undefined && (start === '0' || now === '0' || now === start);
}
