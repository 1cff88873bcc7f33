/**
 * The simulator's request log: one record per request, kept in memory in arrival order and, when a
 * file is given, appended to it as one JSON line each (JSONL), so a test or a person can see what
 * each CLI sent and what it got. Owned by one server; the file stays open until `close`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { AuthKind, Provider, Purpose } from './protocol.js';

/** What one request was and how it was answered. */
export interface RequestRecord {
  /** When the request arrived (ISO 8601). */
  readonly at: string;
  /** The script named by the first path segment, as sent (it may be unknown). */
  readonly script: string;
  /** Absent for paths that belong to no provider protocol. */
  readonly provider?: Provider;
  readonly method: string;
  /** The provider path after the script segment, with its query (`/v1/messages?beta=true`). */
  readonly path: string;
  readonly model?: string;
  readonly stream?: boolean;
  /** Names of the tools the request offered. */
  readonly tools?: readonly string[];
  readonly auth: AuthKind;
  /** The text of the last user message that has text: the prompt, or a handoff prompt. */
  readonly lastUserText?: string;
  /** The result of the last tool call the request sends back, as the model reads it (Anthropic only). */
  readonly lastToolResult?: string;
  /** The index of the script reply this request took, or the side request it was. */
  readonly reply?: number | Exclude<Purpose, 'main'>;
  /**
   * What was sent: `text`, `write:<tool>`, `shell:<tool>`, `no-tool` (a write or shell reply for a
   * request that offered no usable tool: answered with text saying so), an error reply's kind
   * (`quota`, `rateLimit`, … with `:stream` when inside a stream), `title`, `classifier`,
   * `count_tokens`, `models`, `not_found`, `bad_request`.
   */
  readonly served: string;
  readonly status: number;
}

export class RequestLog {
  readonly records: RequestRecord[] = [];
  private fd: number | undefined;

  /** Opens `file` for appending (created when missing); throws when it cannot be opened. */
  constructor(file?: string) {
    if (file !== undefined) this.fd = openSync(file, 'a');
  }

  /** Keeps `record` and appends it to the file; throws when the file cannot be written. */
  add(record: RequestRecord): void {
    this.records.push(record);
    if (this.fd !== undefined) writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  /** Closes the file. Idempotent. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }
}

/** How many characters of the last user text a log line shows. */
const LINE_TEXT_CHARS = 60;

/** One line describing a record, for `harmflow sim-api`'s output. */
export function formatRecord(record: RequestRecord): string {
  const time = record.at.slice(11, 19);
  const reply = typeof record.reply === 'number' ? `#${record.reply} ` : '';
  const parts = [
    time,
    record.script,
    record.provider ?? '-',
    `${record.method} ${record.path}`,
    ...(record.model !== undefined ? [record.model] : []),
    `→ ${reply}${record.served} ${record.status}`,
  ];
  const text = record.lastUserText?.replace(/\s+/g, ' ').trim();
  if (text) parts.push(JSON.stringify(text.length > LINE_TEXT_CHARS ? `${text.slice(0, LINE_TEXT_CHARS)}…` : text));
  return parts.join('  ');
}
