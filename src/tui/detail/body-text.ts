/**
 * The text an opened execution's view scrolls — the Summary, the Transcript, the Changes, or the
 * record `Enter` opened on the timeline — as lines for the view's width, and how many lines its
 * body has once the prompt (if one is open) took its own. The timeline itself is not text: its
 * rows are drawn around the selection (detail-view.tsx). Pure.
 */

import { changesLines } from './changes-lines.js';
import { eventRecordLines } from './event-lines.js';
import type { Line } from './lines.js';
import { promptLines } from './prompt-lines.js';
import { type DetailState, scrolledNow } from './state.js';
import { summaryLines } from './summary-lines.js';
import { transcriptLines } from './transcript-lines.js';
import type { DetailData } from './use-detail.js';

/** Header, tabs, notice and key hints: the lines the view spends besides its body and prompt. */
export const DETAIL_CHROME_LINES = 4;

/** The lines of what scrolls now, or undefined on the timeline. */
export function scrolledText(
  view: Pick<DetailState, 'tab' | 'openEvent'>,
  data: DetailData,
  width: number,
  now: Date,
): Line[] | undefined {
  switch (scrolledNow(view)) {
    case 'record': {
      const opened = data.events.find((event) => event.id === view.openEvent);
      return opened === undefined
        ? [{ text: 'That record is not among those received.', tone: 'muted' }]
        : eventRecordLines(opened.record, opened.id, width);
    }
    case 'summary':
      return data.summary === undefined
        ? [{ text: 'Loading…', tone: 'muted' }]
        : data.summary instanceof Error
          ? [{ text: data.summary.message, tone: 'error' }]
          : summaryLines(
              {
                execution: data.summary.execution,
                attempts: data.summary.attempts,
                context: data.context,
                disk: data.disk,
                wait: data.summary.execution.state === 'waiting' ? data.wait : undefined,
                ...(data.summary.routing !== undefined && { routing: data.summary.routing }),
                now,
              },
              width,
            );
    case 'transcript': {
      const lines = transcriptLines(
        data.events.map((event) => event.record),
        width,
      );
      return lines.length > 0 ? lines : [{ text: 'Nothing said yet.', tone: 'muted' }];
    }
    case 'changes':
      return changesLines(data.changes, width);
    default:
      return undefined;
  }
}

/** The prompt's lines and the body's height in a view `height` lines high. */
export function detailLayout(view: DetailState, width: number, height: number): { prompt: Line[]; bodyHeight: number } {
  const prompt = view.prompt === undefined ? [] : promptLines(view.prompt, width);
  return { prompt, bodyHeight: Math.max(1, height - DETAIL_CHROME_LINES - prompt.length) };
}
