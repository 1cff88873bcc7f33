/**
 * How `harmflow workflow run|resume` shows a drive's progress (the figures are workflow-progress.ts's):
 *
 * - `live` (stdout is a terminal, TERM is not `dumb`): the permanent lines formatEvent gives (a step
 *   started or ended, a retry, a failure) scroll as before, and below them one live line — the step
 *   computing now, a bar, its figures — is redrawn in place (`\r`, erase line `ESC[2K`) as items
 *   complete, at most every 100 ms, and every second besides, so the rate moves while a slow item
 *   runs. A permanent line erases the live line, prints, and the live line is drawn again under it.
 * - `lines` (stdout piped, or a dumb terminal): the permanent lines, and while a step computes one
 *   plain line every `everyMs` (`fact-check: 412/730 done (56%), 18.3/min, $4.12 so far, ETA 17 min
 *   (14:32 UTC)`). No escape codes.
 * - `none` (`--quiet`, `--json`): nothing.
 *
 * Why an ANSI redraw of one line, not Ink (which src/tui/ uses): the live block is one line, which
 * `\r` and erase-line redraw without moving the cursor up, so there is no layout to do; cut to the
 * terminal's width it never wraps. Ink would add React and Ink's import to every `workflow run` —
 * 340–360 ms on the dev machine, by `node --input-type=module -e "const t=performance.now(); await
 * import('ink'); await import('react'); console.log(performance.now()-t)"`; it writes only the last
 * frame when it thinks it is in CI
 * (`is-in-ci`), which would make a terminal run silent; and it has to be kept from stdin, raw mode and
 * the console. This writes to stdout only: it never reads stdin, sets no terminal mode and hides no
 * cursor, so a killed process leaves the terminal as it found it (with the last live line on it).
 *
 * Lifetime: open once the plan is printed, `close()` (idempotent) once the drive has ended or thrown:
 * it stops the timers and erases the live line, before the command prints how the run ended. The
 * timers are unref'd: they never keep the process alive. Text from the workflow (an item's error) is
 * made inert (core/terminal-text.ts) before it is printed.
 */
import { inertText } from '../core/terminal-text.js';
import type { Plan } from '../workflows/plan.js';
import type { ModelPrice } from '../workflows/plan-cost.js';
import type { WorkflowEvent } from '../workflows/run.js';
import { formatEvent } from './workflow-format.js';
import { DriveProgress, formatLiveLine, formatProgressLine } from './workflow-progress.js';

export type ProgressMode = 'live' | 'lines' | 'none';

/** Where progress goes: process.stdout, or a fake in tests. `columns` is read at every redraw. */
export interface ProgressSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ProgressOutput {
  /** For the engine's `onEvent`; absent in `none` mode. */
  readonly onEvent?: (event: WorkflowEvent) => void;
  close(): void;
}

/** 100 ms: at most 10 redraws a second — smooth to the eye, and a step finishing thousands of items a second costs nothing. */
const MIN_REDRAW_MS = 100;
/** 1 s: the live line's rate and ETA move while an item runs, without writing more than a person reads. */
const TICK_MS = 1_000;
/** The width assumed when the terminal does not say (a pty of no size). */
const DEFAULT_COLUMNS = 80;
/** Return to the line's start and erase it. */
const ERASE_LINE = '\r\x1b[2K';

/** The mode for the options and where stdout goes. */
export function progressMode(
  options: { readonly json?: boolean; readonly quiet?: boolean },
  out: { readonly isTTY?: boolean },
  env: NodeJS.ProcessEnv,
): ProgressMode {
  if (options.json || options.quiet) return 'none';
  return out.isTTY === true && env.TERM !== 'dumb' ? 'live' : 'lines';
}

export function openProgress(options: {
  readonly mode: ProgressMode;
  readonly plan: Pick<Plan, 'steps'>;
  readonly prices: Readonly<Record<string, ModelPrice>>;
  readonly out: ProgressSink;
  /** How often a piped run prints its progress line while a step computes. */
  readonly everyMs: number;
  /** Injectable clock (ms since the epoch). */
  readonly now?: () => number;
}): ProgressOutput {
  const now = options.now ?? Date.now;
  const model = new DriveProgress(options.plan, options.prices);
  if (options.mode === 'none') return { close: () => {} };
  return options.mode === 'live' ? live(model, options.out, now) : lines(model, options.out, options.everyMs, now);
}

function live(model: DriveProgress, out: ProgressSink, now: () => number): ProgressOutput {
  let shown = false;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let pending: NodeJS.Timeout | undefined;
  let closed = false;
  const draw = () => {
    if (pending !== undefined) clearTimeout(pending);
    pending = undefined;
    lastDraw = now();
    const figures = model.figures(lastDraw);
    if (figures === undefined) {
      if (shown) out.write(ERASE_LINE);
      shown = false;
      return;
    }
    out.write(`${shown ? ERASE_LINE : ''}${formatLiveLine(figures, out.columns || DEFAULT_COLUMNS)}`);
    shown = true;
  };
  const request = () => {
    const wait = lastDraw + MIN_REDRAW_MS - now();
    if (wait <= 0) draw();
    else pending ??= setTimeout(draw, wait).unref();
  };
  const tick = setInterval(() => {
    if (shown || model.figures(now()) !== undefined) draw();
  }, TICK_MS).unref();
  return {
    onEvent(event) {
      if (closed) return;
      model.apply(event, now());
      const line = formatEvent(event);
      if (line !== undefined) {
        out.write(`${shown ? ERASE_LINE : ''}${inertText(line)}\n`);
        shown = false;
        draw();
      } else if (event.type === 'item.done' || event.type === 'item.failed') {
        request();
      }
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(tick);
      if (pending !== undefined) clearTimeout(pending);
      if (shown) out.write(ERASE_LINE);
      shown = false;
    },
  };
}

function lines(model: DriveProgress, out: ProgressSink, everyMs: number, now: () => number): ProgressOutput {
  let every: NodeJS.Timeout | undefined;
  let closed = false;
  const stop = () => {
    if (every !== undefined) clearInterval(every);
    every = undefined;
  };
  return {
    onEvent(event) {
      if (closed) return;
      model.apply(event, now());
      const line = formatEvent(event);
      if (line !== undefined) out.write(`${inertText(line)}\n`);
      if (event.type === 'step.ended' || event.type === 'run.ended') stop();
      if (event.type === 'step.started' && model.figures(now()) !== undefined) {
        stop();
        every = setInterval(() => {
          const figures = model.figures(now());
          if (figures !== undefined) out.write(`${formatProgressLine(figures)}\n`);
        }, everyMs).unref();
      }
    },
    close() {
      closed = true;
      stop();
    },
  };
}
