/**
 * Reading OpenCode's stderr: its `--print-logs` lines and the early sign of a spent quota.
 *
 * OpenCode retries a failed model request five times before it reports anything on stdout, backing
 * off 2, 4, 8, 16, 32 s (~75 s in all for OpenAI's `insufficient_quota`, note §3.6), or waiting the
 * provider's `retry-after`, uncapped: hours for a plan limit. With `--print-logs --log-level INFO`
 * every failed attempt is logged as it happens, as one logfmt line (checked in 1.18.33):
 *
 *     timestamp=… level=ERROR run=8e287823 message="stream error" providerID=mock modelID=mock-model
 *     session.id=ses_… small=false agent=build mode=primary error.error="AI_APICallError: <provider message>"
 *
 * Pure; the watcher keeps no state.
 */
import type { Classification } from '../adapter.js';
import { isQuotaMessage, parseResetIn } from './limits.js';

/** A quoted logfmt value as OpenCode writes it: a JSON string literal. */
const QUOTED = /^"(?:[^"\\]|\\.)*"/;

/** The error class OpenCode puts before the provider's message (`AI_APICallError: …`). */
const ERROR_CLASS = /^\w*Error: /;

/**
 * Returns the value of `key` in one logfmt log line (`key=value` or `key="quoted \"value\""`);
 * undefined when the line has no such key or its quoted value does not decode.
 */
export function logField(line: string, key: string): string | undefined {
  const marker = ` ${key}=`;
  const padded = ` ${line}`;
  const at = padded.indexOf(marker);
  if (at < 0) return undefined;
  const rest = padded.slice(at + marker.length);
  if (!rest.startsWith('"')) return rest.split(/\s/, 1)[0];
  const quoted = rest.match(QUOTED)?.[0];
  if (quoted === undefined) return undefined;
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

/** Returns the provider's message of a failed main-model request's log line; undefined for any other line. */
export function streamErrorMessage(line: string): string | undefined {
  if (logField(line, 'level') !== 'ERROR' || logField(line, 'message') !== 'stream error') return undefined;
  // The small model (session titles) fails on its own; the turn goes on without it.
  if (logField(line, 'small') === 'true') return undefined;
  return logField(line, 'error.error')?.replace(ERROR_CLASS, '');
}

/**
 * Creates the watcher of one turn's stderr: it answers `quota_exhausted` on the first failed request
 * whose provider message says the quota or plan limit is spent, so the engine ends the attempt within
 * seconds instead of after OpenCode's retries. A transient rate limit or an overload is left to those
 * retries. `now` (epoch ms) dates a relative reset time when the line carries no timestamp.
 *
 * Not seen here: OpenCode Zen's free-tier limit, whose message (`Rate limit exceeded. Please try again
 * later.`) is the same as a transient one's; only the final `error` line's body tells them apart.
 */
export function createOpencodeStderrWatcher(
  now: () => number = Date.now,
): (line: string) => Classification | undefined {
  return (line) => {
    const message = streamErrorMessage(line);
    if (message === undefined || !isQuotaMessage(message)) return undefined;
    const logged = Date.parse(logField(line, 'timestamp') ?? '');
    const resetsAt = parseResetIn(message, Number.isNaN(logged) ? now() : logged);
    return { outcome: 'quota_exhausted', message, ...(resetsAt !== undefined && { resetsAt }) };
  };
}
