/**
 * Keeps a list screen's rows fresh (the executions of Executions and History, the workflow runs of
 * Workflows): asks the source for the screen shown at once and then every
 * `pollMs` after each answer (never two requests at a time for a slow service), and again at once
 * when the screen changes. The rows of each screen are kept, so `Tab` shows the last known rows
 * while their refresh is on its way. An error keeps the last rows and is reported until an answer
 * comes. Stops when the component unmounts. Rows `known` before the first render (start.tsx asks
 * for the first screen's while React loads) are drawn in it; when they are the screen's shown
 * first, its first request waits `pollMs`, as a refresh does.
 *
 * Why polling: the API has no stream of the list (docs/api.md: only an execution's events are a
 * stream), and the Workbench's Executions screen polls the same route every 2 s.
 */
import { useEffect, useRef, useState } from 'react';
import type { Screen, ScreenRows } from './rows.js';
import type { ExecutionSource } from './source.js';

/** 2 s, the Workbench's Executions screen's period: live enough to see a switch happen, one small request each time. */
export const POLL_MS = 2000;

export interface ListState {
  /** Each screen's rows as last answered; absent until its first answer. */
  readonly rows: ScreenRows;
  /** The last request's error message, until a request succeeds. */
  readonly error: string | undefined;
}

export function usePolledList(
  source: ExecutionSource,
  screen: Screen,
  pollMs: number = POLL_MS,
  known: ScreenRows = {},
): ListState {
  const [state, setState] = useState<ListState>({ rows: known, error: undefined });
  /** The rows known at the first render, until the first request is due. */
  const firstKnown = useRef(known);
  useEffect(() => {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async (): Promise<void> => {
      try {
        const rows: ScreenRows =
          screen === 'workflows' ? { workflows: await source.runs() } : { [screen]: await source.list(screen) };
        if (!stopped) setState((previous) => ({ rows: { ...previous.rows, ...rows }, error: undefined }));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!stopped) setState((previous) => ({ ...previous, error: message }));
      }
      if (!stopped) timer = setTimeout(() => void tick(), pollMs);
    };
    const shown = firstKnown.current[screen] !== undefined;
    firstKnown.current = {};
    if (shown) timer = setTimeout(() => void tick(), pollMs);
    else void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [source, screen, pollMs]);
  return state;
}
