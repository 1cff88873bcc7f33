/**
 * Keeps an opened workflow run fresh: asks the source for it (`GET /api/workflows/runs/:id`, the run
 * and its items per step) at once and then every `pollMs` after each answer, as the list screens
 * poll theirs, until the run is closed or another is opened (then what was known is dropped). An
 * error is kept until an answer comes; the last answer stays shown meanwhile.
 */
import { useEffect, useState } from 'react';
import type { WorkflowRunWithSteps } from '../cli/client.js';
import type { ExecutionSource } from './source.js';

export interface RunData {
  /** The last answer, until the run is closed. */
  readonly answer: WorkflowRunWithSteps | undefined;
  /** The last request's error, until a request succeeds. */
  readonly error: Error | undefined;
}

const NOTHING: RunData = { answer: undefined, error: undefined };

export function usePolledRun(
  source: Pick<ExecutionSource, 'workflowRun'>,
  id: string | undefined,
  pollMs: number,
): RunData {
  const [data, setData] = useState<RunData>(NOTHING);
  useEffect(() => {
    setData(NOTHING);
    if (id === undefined) return;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async (): Promise<void> => {
      try {
        const answer = await source.workflowRun(id);
        if (!stopped) setData({ answer, error: undefined });
      } catch (error) {
        if (!stopped)
          setData((previous) => ({ ...previous, error: error instanceof Error ? error : new Error(String(error)) }));
      }
      if (!stopped) timer = setTimeout(() => void tick(), pollMs);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [source, id, pollMs]);
  return data;
}
