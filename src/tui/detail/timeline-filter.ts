/**
 * The Events filter of the terminal UI, as the Workbench's timeline filters its rows: a record is
 * shown when its type, harness, attempt (`#2`) or the line describing it contains the text typed,
 * case ignored. Pure.
 */
import { describeEvent } from '../../web/describe-event.js';
import type { EventRecord } from '../../web/records.js';

export function matchesEventFilter(record: EventRecord, filter: string): boolean {
  const wanted = filter.trim().toLowerCase();
  if (wanted === '') return true;
  const attempt = record.attempt === undefined ? '' : `#${record.attempt}`;
  return `${record.type} ${record.harness ?? ''} ${attempt} ${describeEvent(record)}`.toLowerCase().includes(wanted);
}
