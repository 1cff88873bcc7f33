/** The machine a benchmark ran on, as its results record it: cores, CPU model, memory, Node. */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export function machine() {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim();
  return {
    cores: cpus().length,
    model: model ?? cpus()[0]?.model.trim(),
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
  };
}
