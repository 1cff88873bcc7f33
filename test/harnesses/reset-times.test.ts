/**
 * Every reset-time format the two reference notes show (claude-code-and-codex.md, "CC" below, and
 * gemini-cli-and-opencode.md, "GO"), read by the parser HarmFlow reads it with, at fixed `now` values:
 * the same day, the next day, the next year, zones other than UTC (with and without DST) and texts
 * that name no time. Forms the CLIs' own code writes but the notes do not quote are marked "source".
 */
import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../src/events/schema.js';
import { classifyClaude } from '../../src/harnesses/claude-code/classify.js';
import { createClaudeParser } from '../../src/harnesses/claude-code/parse.js';
import { parseClaudeResetText } from '../../src/harnesses/claude-code/reset-text.js';
import { classifyCodex, parseTryAgainAt } from '../../src/harnesses/codex/classify.js';
import { quotaOf, retryDelaySeconds } from '../../src/harnesses/gemini/classify.js';
import { parseResetIn } from '../../src/harnesses/opencode/limits.js';
import { createOpencodeParser } from '../../src/harnesses/opencode/parse.js';
import { harnessTimeZone } from '../../src/harnesses/wall-time.js';

/** One text, the instant it is read at (ISO), and the reset expected from it (ISO), if any. */
type Row = readonly [text: string, now: string, expected: string | undefined];

/** Runs `run` with this process's local time zone (`TZ`) set to `zone`, then puts the old one back. */
function withTimeZone<T>(zone: string, run: () => T): T {
  const before = process.env.TZ;
  process.env.TZ = zone;
  try {
    return run();
  } finally {
    if (before === undefined) Reflect.deleteProperty(process.env, 'TZ');
    else process.env.TZ = before;
  }
}

/** Process time zones a zone-free parser must not depend on (Tokyo has no DST, New York has). */
const PROCESS_ZONES = ['UTC', 'Asia/Tokyo', 'America/New_York'];

const at = (iso: string) => Date.parse(iso);

describe('Claude Code: `· resets <time> (<IANA zone>)` in the limit text', () => {
  const rows: Row[] = [
    // CC §3.5 and §3.6: `You've hit your 5-hour limit · resets 9:40am (UTC)`.
    ["You've hit your 5-hour limit · resets 9:40am (UTC)", '2026-11-29T08:00:00Z', '2026-11-29T09:40:00.000Z'],
    // …read after 9:40 the same day: tomorrow's 9:40.
    ["You've hit your 5-hour limit · resets 9:40am (UTC)", '2026-11-29T10:00:00Z', '2026-11-30T09:40:00.000Z'],
    // …read within the minute shown (Claude cuts the seconds): still today's.
    ["You've hit your 5-hour limit · resets 9:40am (UTC)", '2026-11-29T09:40:54Z', '2026-11-29T09:40:00.000Z'],
    // CC §3.5 and §3.6: `You've hit your weekly limit · resets Nov 30, 9:41am (UTC)`.
    ["You've hit your weekly limit · resets Nov 30, 9:41am (UTC)", '2026-11-27T08:00:00Z', '2026-11-30T09:41:00.000Z'],
    // The same form read across a New Year (a date without a year, as HarmFlow's simulator writes it).
    ["You've hit your weekly limit · resets Jan 2, 9:41am (UTC)", '2026-12-31T08:00:00Z', '2027-01-02T09:41:00.000Z'],
    // Source: the year when it is not the current one in the zone, `Jan 2, 2027, 9:41am`.
    [
      "You've hit your weekly limit · resets Jan 2, 2027, 9:41am (Europe/Berlin)",
      '2026-12-28T12:00:00Z',
      '2027-01-02T08:41:00.000Z',
    ],
    // Source: no minutes on the hour, `3pm`; U+2019 apostrophe (CC §3.6, `seven_day_opus`); New York in EDT (-4).
    ['You’ve hit your Opus limit · resets 3pm (America/New_York)', '2026-07-15T12:00:00Z', '2026-07-15T19:00:00.000Z'],
    // Next day across the end of DST: read at 23:30 EDT on Oct 31, reset 9:40 EST (-5) on Nov 1.
    [
      "You've hit your 5-hour limit · resets 9:40am (America/New_York)",
      '2026-11-01T03:30:00Z',
      '2026-11-01T14:40:00.000Z',
    ],
    // The repeated hour of Nov 1: 1:30 EDT while it is ahead, then 1:30 EST.
    [
      "You've hit your 5-hour limit · resets 1:30am (America/New_York)",
      '2026-11-01T04:50:00Z',
      '2026-11-01T05:30:00.000Z',
    ],
    [
      "You've hit your 5-hour limit · resets 1:30am (America/New_York)",
      '2026-11-01T06:10:00Z',
      '2026-11-01T06:30:00.000Z',
    ],
    // Dates either side of Berlin's DST end (Oct 25): CEST (+2), then CET (+1).
    [
      "You've hit your weekly limit · resets Oct 24, 9am (Europe/Berlin)",
      '2026-10-20T12:00:00Z',
      '2026-10-24T07:00:00.000Z',
    ],
    [
      "You've hit your weekly limit · resets Oct 26, 9am (Europe/Berlin)",
      '2026-10-20T12:00:00Z',
      '2026-10-26T08:00:00.000Z',
    ],
    // CC §3.6 `progressSaved` after the time, `overage` → `usage credit limit`; Kolkata (+5:30), next day there.
    [
      "You've hit your usage credit limit · resets 9:40am (Asia/Kolkata) · progress saved",
      '2026-11-29T06:00:00Z',
      '2026-11-30T04:10:00.000Z',
    ],
    // Source: the pooled form `· your weekly limit resets <time>`.
    [
      'Your org is out of usage · your weekly limit resets Nov 30, 9am (UTC)',
      '2026-11-27T08:00:00Z',
      '2026-11-30T09:00:00.000Z',
    ],
    // No reset time: unknown zone, no zone, impossible date or time, other texts of CC §3.5–3.6.
    ["You've hit your 5-hour limit · resets 9:40am (Mars/Olympus_Mons)", '2026-11-29T08:00:00Z', undefined],
    ["You've hit your 5-hour limit · resets 9:40am", '2026-11-29T08:00:00Z', undefined],
    ["You've hit your weekly limit · resets Feb 30, 9:41am (UTC)", '2026-02-01T08:00:00Z', undefined],
    ["You've hit your 5-hour limit · resets 13:40pm (UTC)", '2026-11-29T08:00:00Z', undefined],
    ['Your usage limit has reset', '2026-11-29T08:00:00Z', undefined],
    ["You've hit your monthly spend limit. See Usage in Settings", '2026-11-29T08:00:00Z', undefined],
    [
      'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.',
      '2026-11-29T08:00:00Z',
      undefined,
    ],
  ];
  for (const [text, now, expected] of rows) {
    it(`reads "${text}" at ${now} as ${expected}, whatever the process's zone`, () => {
      for (const zone of PROCESS_ZONES) {
        expect(withTimeZone(zone, () => parseClaudeResetText(text, at(now)))).toBe(expected);
      }
    });
  }

  // CC §3.3: `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795945254,…}}`, epoch seconds.
  const rejected = JSON.stringify({
    type: 'rate_limit_event',
    rate_limit_info: {
      status: 'rejected',
      resetsAt: 1795945254,
      rateLimitType: 'five_hour',
      unifiedWindows: { five_hour: { utilization: 1, resetsAt: 1795945254, status: 'rejected' } },
    },
    session_id: 's',
  });
  const result = (text: string): HarnessEvent => ({ type: 'result', data: { ok: false, message: text } });
  const classify = (events: HarnessEvent[], now: string) =>
    classifyClaude({ events, exitCode: 1, signal: null, stderrTail: '', timeZone: 'UTC' }, at(now)).resetsAt;

  it('reads rate_limit_event.resetsAt as epoch seconds', () => {
    expect(createClaudeParser()(rejected)).toEqual([
      {
        type: 'rate_limit',
        data: { status: 'rejected', resetsAt: '2026-11-29T09:40:54.000Z', window: 'five_hour', utilization: 1 },
      },
    ]);
  });

  it('keeps the reset of the event first and falls back to the text', () => {
    const text = "You've hit your 5-hour limit · resets 9:40am (UTC)";
    const event = createClaudeParser()(rejected);
    expect(classify([...event, result(text)], '2026-11-29T08:00:00Z')).toBe('2026-11-29T09:40:54.000Z');
    expect(classify([result(text)], '2026-11-29T08:00:00Z')).toBe('2026-11-29T09:40:00.000Z');
    expect(
      classify([result("You've hit your 5-hour limit · resets 9:40am (Nowhere/Land)")], '2026-11-29T08:00:00Z'),
    ).toBeUndefined();
  });
});

describe('Codex: `try again at <time>` in the zone Codex ran in', () => {
  // Codex writes its process's local time; HarmFlow gives the CLI its TZ and reads the time in that zone.
  const rows: (readonly [zone: string, ...Row])[] = [
    // CC §4.4 (plus): `…visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:31 AM.`
    [
      'UTC',
      'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:31 AM.',
      '2026-11-29T08:00:00Z',
      '2026-11-29T09:31:00.000Z',
    ],
    // The same text from a Codex in Los Angeles, PST (-8) in November, PDT (-7) in July.
    [
      'America/Los_Angeles',
      'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:31 AM.',
      '2026-11-29T16:00:00Z',
      '2026-11-29T17:31:00.000Z',
    ],
    [
      'America/Los_Angeles',
      'You’ve hit your usage limit. Try again at 9:31 AM.',
      '2026-07-15T15:00:00Z',
      '2026-07-15T16:31:00.000Z',
    ],
    // CC §4.4 (free): `…Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 9:44 AM.`; EST (-5).
    [
      'America/New_York',
      'You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 9:44 AM.',
      '2026-11-29T12:00:00Z',
      '2026-11-29T14:44:00.000Z',
    ],
    // CC §4.4 (team): `…Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:44 AM.`; read
    // at 21:00 in Berlin (CET, +1), after 9:44: tomorrow's.
    [
      'Europe/Berlin',
      'You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:44 AM.',
      '2026-11-29T20:00:00Z',
      '2026-11-30T08:44:00.000Z',
    ],
    // Tokyo (+9, no DST): read at 23:00 on Nov 29 there, 9:31 is the next day in the zone (14:00 UTC, same UTC day)…
    [
      'Asia/Tokyo',
      'You’ve hit your usage limit. Try again at 9:31 AM.',
      '2026-11-29T14:00:00Z',
      '2026-11-30T00:31:00.000Z',
    ],
    // …and read at 01:00 on Nov 30 there (still Nov 29 in UTC), 9:31 is today in the zone.
    [
      'Asia/Tokyo',
      'You’ve hit your usage limit. Try again at 9:31 AM.',
      '2026-11-29T16:00:00Z',
      '2026-11-30T00:31:00.000Z',
    ],
    // Next day across Berlin's start of DST (Mar 29): read at 22:00 CET (+1), 9:31 CEST (+2).
    [
      'Europe/Berlin',
      'You’ve hit your usage limit. Try again at 9:31 AM.',
      '2026-03-28T21:00:00Z',
      '2026-03-29T07:31:00.000Z',
    ],
    // Berlin's repeated hour at the end of DST (Oct 25): 2:30 CEST while it is ahead, then 2:30 CET.
    [
      'Europe/Berlin',
      'You’ve hit your usage limit. Try again at 2:30 AM.',
      '2026-10-25T00:10:00Z',
      '2026-10-25T00:30:00.000Z',
    ],
    [
      'Europe/Berlin',
      'You’ve hit your usage limit. Try again at 2:30 AM.',
      '2026-10-25T01:05:00Z',
      '2026-10-25T01:30:00.000Z',
    ],
    // CC §4.4 (business / enterprise): `…To get more access now, send a request to your admin or try again at 9:44 AM.`;
    // read within the minute shown (Codex cuts the seconds): still today's. Kolkata (+5:30).
    [
      'Asia/Kolkata',
      'You’ve hit your usage limit. To get more access now, send a request to your admin or try again at 9:44 AM.',
      '2026-11-29T04:14:30Z',
      '2026-11-29T04:14:00.000Z',
    ],
    // CC §4.4 (edu): `…usage limit. Try again at 9:44 AM.`; next day across the end of DST (23:30 EDT → 9:44 EST).
    [
      'America/New_York',
      'You’ve hit your usage limit. Try again at 9:44 AM.',
      '2026-11-01T03:30:00Z',
      '2026-11-01T14:44:00.000Z',
    ],
    // CC §5: `try again at <h:mm AM/PM>`: midnight and noon.
    ['UTC', 'You’ve hit your usage limit. Try again at 12:05 AM.', '2026-11-29T08:00:00Z', '2026-11-30T00:05:00.000Z'],
    ['UTC', 'You’ve hit your usage limit. Try again at 12:05 PM.', '2026-11-29T08:00:00Z', '2026-11-29T12:05:00.000Z'],
    // Source (codex-rs `format_retry_timestamp`, another local day): `Nov 30th, 2026 9:31 AM`; the next year.
    [
      'America/New_York',
      'You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at Jan 1st, 2027 1:05 PM.',
      '2026-12-31T12:00:00Z',
      '2027-01-01T18:05:00.000Z',
    ],
    // Source: the dated form in Berlin's summer time (CEST, +2), and after its start of DST.
    [
      'Europe/Berlin',
      'You’ve hit your usage limit for gpt-5-codex. Switch to another model now, or try again at Jul 4th, 2026 9:31 AM.',
      '2026-07-01T12:00:00Z',
      '2026-07-04T07:31:00.000Z',
    ],
    [
      'Europe/Berlin',
      'You’ve hit your usage limit. Try again at Mar 30th, 2026 9:31 AM.',
      '2026-03-27T12:00:00Z',
      '2026-03-30T07:31:00.000Z',
    ],
    // Source: the dated form in Tokyo and in Los Angeles, whose date is a day behind Tokyo's at that instant.
    [
      'Asia/Tokyo',
      'You’ve hit your usage limit. Try again at Dec 1st, 2026 9:31 AM.',
      '2026-11-29T12:00:00Z',
      '2026-12-01T00:31:00.000Z',
    ],
    [
      'America/Los_Angeles',
      'You’ve hit your usage limit. Try again at Nov 30th, 2026 4:31 PM.',
      '2026-11-29T12:00:00Z',
      '2026-12-01T00:31:00.000Z',
    ],
    // The repeated hour in the dated form: the earlier instant (CEST).
    [
      'Europe/Berlin',
      'You’ve hit your usage limit. Try again at Oct 25th, 2026 2:30 AM.',
      '2026-10-20T12:00:00Z',
      '2026-10-25T00:30:00.000Z',
    ],
    // No reset time: `Try again later.` (no resets_at), CC §4.4's transient `Please try again in 1.5s.`, impossible
    // dates and times (Feb 30th; 2:30 AM on Berlin's start of DST, which its clocks skip), an unknown zone.
    ['UTC', 'You’ve hit your usage limit. Try again later.', '2026-11-29T08:00:00Z', undefined],
    [
      'UTC',
      'rate limit exceeded: Rate limit reached for gpt-5 … Please try again in 1.5s.',
      '2026-11-29T08:00:00Z',
      undefined,
    ],
    ['UTC', 'You’ve hit your usage limit. Try again at Feb 30th, 2026 9:44 AM.', '2026-02-01T08:00:00Z', undefined],
    [
      'Europe/Berlin',
      'You’ve hit your usage limit. Try again at Mar 29th, 2026 2:30 AM.',
      '2026-03-27T12:00:00Z',
      undefined,
    ],
    ['UTC', 'You’ve hit your usage limit. Try again at 13:75 PM.', '2026-11-29T08:00:00Z', undefined],
    ['Mars/Olympus_Mons', 'You’ve hit your usage limit. Try again at 9:31 AM.', '2026-11-29T08:00:00Z', undefined],
  ];
  for (const [zone, text, now, expected] of rows) {
    it(`reads "${text.slice(-40)}" in ${zone} at ${now} as ${expected}, whatever the process's zone`, () => {
      for (const processZone of PROCESS_ZONES) {
        expect(withTimeZone(processZone, () => parseTryAgainAt(text, at(now), zone))).toBe(expected);
      }
    });
  }

  it('classifies in the zone the turn ran in', () => {
    const message = 'You’ve hit your usage limit. Try again at 9:31 AM.';
    const events: HarnessEvent[] = [{ type: 'result', data: { ok: false, message } }];
    const resetIn = (timeZone: string) =>
      classifyCodex({ events, exitCode: 1, signal: null, stderrTail: '', timeZone }, at('2026-11-29T08:00:00Z'))
        .resetsAt;
    expect(resetIn('Asia/Tokyo')).toBe('2026-11-30T00:31:00.000Z');
    expect(resetIn('America/Los_Angeles')).toBe('2026-11-29T17:31:00.000Z');
  });
});

describe('harnessTimeZone: the zone a harness runs in and its times are read in', () => {
  it("prefers the link's TZ", () => {
    for (const processZone of PROCESS_ZONES) {
      expect(withTimeZone(processZone, () => harnessTimeZone({ TZ: 'Asia/Tokyo' }))).toBe('Asia/Tokyo');
      expect(withTimeZone(processZone, () => harnessTimeZone({ TZ: 'EST5EDT', LANG: 'C' }))).toBe('EST5EDT');
    }
  });

  it("otherwise gives HarmFlow's resolved zone", () => {
    expect(harnessTimeZone({})).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    for (const processZone of PROCESS_ZONES) {
      expect(withTimeZone(processZone, () => harnessTimeZone({ LANG: 'C' }))).toBe(processZone);
    }
  });

  it("gives HarmFlow's zone for a TZ Intl cannot read, and UTC when it cannot read HarmFlow's either", () => {
    for (const TZ of [':/etc/localtime', 'CET-1CEST,M3.5.0,M10.5.0/3', 'Nowhere/Land', '']) {
      expect(withTimeZone('Europe/Berlin', () => harnessTimeZone({ TZ }))).toBe('Europe/Berlin');
      expect(withTimeZone('Nowhere/Land', () => harnessTimeZone({ TZ }))).toBe('UTC');
    }
    expect(withTimeZone('', () => harnessTimeZone({}))).toBe('UTC');
  });
});

describe('OpenCode: `It will reset in <d h m>` and `retry-after`', () => {
  const rows: Row[] = [
    // GO §3.6: `"<limitName> usage limit reached. It will reset in <d h m>. …"`; hours and minutes, into the next day.
    [
      '5 hour usage limit reached. It will reset in 2 hours 5 minutes. To continue using this model now, enable usage from your available balance - https://opencode.ai/workspace/wrk/go',
      '2026-11-29T23:30:00Z',
      '2026-11-30T01:35:00.000Z',
    ],
    // Source (1.18.33): days and hours, into the next year; days alone; minutes alone; `less than a minute`.
    [
      'Weekly usage limit reached. It will reset in 1 day 1 hour. To continue …',
      '2026-12-31T23:00:00Z',
      '2027-01-02T00:00:00.000Z',
    ],
    [
      'Monthly usage limit reached. It will reset in 3 days. To continue …',
      '2026-11-29T12:00:00Z',
      '2026-12-02T12:00:00.000Z',
    ],
    [
      'Usage limit reached. It will reset in 1 minute. To continue …',
      '2026-11-29T12:00:00Z',
      '2026-11-29T12:01:00.000Z',
    ],
    [
      'Usage limit reached. It will reset in less than a minute. To continue …',
      '2026-11-29T12:00:00Z',
      '2026-11-29T12:01:00.000Z',
    ],
    // The Go gateway's own words, as recorded (test/fixtures/opencode/go-usage-limit).
    [
      '5-hour usage limit reached. Resets in 3hr 12min. To continue …',
      '2026-11-29T12:00:00Z',
      '2026-11-29T15:12:00.000Z',
    ],
    // No reset time: no `retry-after` (an empty duration), `FreeUsageLimitError`, GO §3.6's transient `Please try again in 2s.`
    ['Usage limit reached. It will reset in . To continue …', '2026-11-29T12:00:00Z', undefined],
    ['Free usage exceeded, subscribe to Go', '2026-11-29T12:00:00Z', undefined],
    ['Rate limit reached for mock-model … Please try again in 2s.', '2026-11-29T12:00:00Z', undefined],
  ];
  for (const [text, now, expected] of rows) {
    it(`reads "${text.slice(0, 60)}" at ${now} as ${expected}, whatever the process's zone`, () => {
      for (const zone of PROCESS_ZONES) expect(withTimeZone(zone, () => parseResetIn(text, at(now)))).toBe(expected);
    });
  }

  // GO §3.6: `retry-after` (seconds or an HTTP date) on a quota error, dated from the line's `timestamp`.
  const retryAfter = (value: string) =>
    JSON.stringify({
      type: 'error',
      timestamp: at('2026-11-29T23:30:00Z'),
      error: {
        name: 'APIError',
        data: {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          statusCode: 429,
          responseHeaders: { 'retry-after': value },
          responseBody: '{"error":{"code":"insufficient_quota"}}',
        },
      },
    });
  const headerRows = [
    ['3600', '2026-11-30T00:30:00.000Z'],
    ['Tue, 01 Dec 2026 09:00:00 GMT', '2026-12-01T09:00:00.000Z'],
    ['soon', undefined],
  ] as const;
  for (const [value, expected] of headerRows) {
    it(`reads retry-after "${value}" as ${expected}`, () => {
      const limit = createOpencodeParser()(retryAfter(value)).find((event) => event.type === 'rate_limit');
      expect(limit?.type === 'rate_limit' ? limit.data.resetsAt : 'no rate_limit event').toBe(expected);
    });
  }
});

describe('Gemini CLI: `Please retry in <d>` and `Suggested retry after <d>.`', () => {
  // `quotaOf` dates a quota only when its retry delay is over 300 s (what makes it terminal, GO §2.6).
  const rows: Row[] = [
    // GO §2.6: `Please retry in Xs` with X > 300; into the next day.
    [
      'You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_paid_tier_requests, limit: 1000, model: gemini-2.5-pro\nPlease retry in 3600s.',
      '2026-11-29T23:30:00Z',
      '2026-11-30T00:30:00.000Z',
    ],
    // GO §2.6: `RetryInfo.retryDelay` > 300 s, which Gemini appends as `\nSuggested retry after <d>.`; fractional, next year.
    [
      'Resource has been exhausted (e.g. check quota).\nSuggested retry after 7200.5s.',
      '2026-12-31T23:00:00Z',
      '2027-01-01T01:00:00.500Z',
    ],
    // Source: Gemini's own parser also takes milliseconds, `Please retry in 400000ms`.
    ['Quota exceeded.\nPlease retry in 400000ms.', '2026-11-29T12:00:00Z', '2026-11-29T12:06:40.000Z'],
  ];
  for (const [text, now, expected] of rows) {
    it(`reads "${text.slice(-32)}" at ${now} as ${expected}, whatever the process's zone`, () => {
      for (const zone of PROCESS_ZONES) {
        expect(withTimeZone(zone, () => quotaOf(text, at(now))?.resetsAt)).toBe(expected);
      }
    });
  }

  it('leaves a quota without a long delay undated', () => {
    const now = at('2026-11-29T12:00:00Z');
    // GO §2.6: the daily quota's message is rewritten without its RetryInfo (41 s in the recorded run).
    expect(quotaOf('You have exhausted your daily quota on this model.', now)).toEqual({
      outcome: 'quota_exhausted',
      message: 'You have exhausted your daily quota on this model.',
    });
    // GO §2.6 and §4: `Suggested retry after 2s.` (RetryInfo ≤ 300 s) and `Suggested retry after 60s.` (PerMinute) are
    // transient: not a quota, and on a turn Gemini ended as a TerminalQuotaError still no reset.
    expect(quotaOf('Quota exceeded.\nSuggested retry after 2s.', now)).toBeUndefined();
    expect(quotaOf('Quota exceeded.\nSuggested retry after 60s.', now, true)?.resetsAt).toBeUndefined();
  });

  it('reads only the delays Google and Gemini name, not the backoff Gemini waits', () => {
    // GO §2.6: `Suggested retry after 2s.. Retrying after 5952ms...` and `Retrying after 1152ms...`.
    expect(retryDelaySeconds('Attempt 1 failed: x\nSuggested retry after 2s.. Retrying after 5952ms...')).toBe(2);
    expect(retryDelaySeconds('Attempt 1 failed: No capacity available… Retrying after 1152ms...')).toBeUndefined();
  });
});
