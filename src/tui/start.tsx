/**
 * Starts the terminal UI on this process's terminal and resolves when the user quits (`q`, or
 * Ctrl+C, which Ink handles). The caller (src/cli/ui.ts) checks there is a terminal and builds the
 * source; this module is what it imports lazily, so other commands never load React or Ink.
 *
 * Two things happen here, before React and Ink load (render.tsx, imported after them; nothing here
 * imports React, which JSX would):
 *  - the list of the screen the UI opens on (Executions) is asked for, so the request travels while
 *    Ink and React load. Answered by then, the first frame shows its rows — no `Loading…` frame,
 *    whose drawing, and Ink's throttle of the next frame (30 a second), the rows would wait for;
 *    else the screen's first request takes this one's answer or error when it comes.
 *  - React's production build is chosen, unless NODE_ENV already says which. With NODE_ENV unset,
 *    `react`, `react-reconciler` and `scheduler` load their development builds, which check every
 *    element and time every component's render (`performance.measure`): profiled with 50
 *    executions listed, the time from the list's answer to its frame fell from 493 to 217 ms of
 *    CPU (bench/ui-first-frame.mjs; BENCHMARKS.md). Only this process and what it starts see the
 *    variable; the terminal UI starts nothing.
 */
import type { ListedExecution, ScreenRows } from './rows.js';
import type { ExecutionSource } from './source.js';
import { INITIAL_STATE } from './ui-state.js';

export async function startUi(options: {
  readonly source: ExecutionSource;
  readonly env: NodeJS.ProcessEnv;
}): Promise<void> {
  const { source } = options;
  // The screen the UI opens on: Executions (ui-state.ts), whose rows are `list('executions')`'s.
  const first = INITIAL_STATE.screen === 'executions' ? source.list('executions') : undefined;
  let answered: ScreenRows | undefined;
  // An error is reported by the screen's first request, which takes this promise (below).
  first?.then(
    (executions) => {
      answered = { executions };
    },
    () => undefined,
  );
  process.env.NODE_ENV ??= 'production';
  const { renderUi } = await import('./render.js');
  if (answered !== undefined || first === undefined) return renderUi(source, answered, options.env);
  await renderUi(takingFirst(source, first), undefined, options.env);
}

/**
 * `source`, whose first `list`, the Executions screen's, takes `first` (its answer or its error,
 * reported as any other); every later `list` asks anew.
 */
function takingFirst(source: ExecutionSource, first: Promise<readonly ListedExecution[]>): ExecutionSource {
  let pending: Promise<readonly ListedExecution[]> | undefined = first;
  return {
    ...source,
    list: (screen) => {
      const answer = pending;
      pending = undefined;
      return screen === 'executions' && answer !== undefined ? answer : source.list(screen);
    },
  };
}
