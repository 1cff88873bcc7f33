/**
 * What the split preview (preview-lines.ts) shows beyond the list's row: the selected execution's
 * `context.json` and disk, asked `PREVIEW_DELAY_MS` after the selection settles on it — never before
 * the first frame, and not for every row `j` passes over — and again when its row says its state or
 * attempts changed (the list's poll). Nothing is asked while `execution` is undefined (no preview
 * shown). An answer for a row no longer selected is dropped. Stops when the component unmounts.
 */
import { useEffect, useState } from 'react';
import type { PreviewData } from './preview-lines.js';
import type { ExecutionSource } from './source.js';

/** 150 ms: longer than a held key's repeat (about 30 a second), short enough to read as at once. */
export const PREVIEW_DELAY_MS = 150;

const LOADING: PreviewData = { context: undefined, disk: undefined };

export function usePreview(
  source: Pick<ExecutionSource, 'context' | 'disk'>,
  execution: string | undefined,
  /** Changes when the row's state or attempts change, so the preview is asked again. */
  version: string,
): PreviewData {
  const [data, setData] = useState<{ readonly id: string | undefined; readonly data: PreviewData }>({
    id: undefined,
    data: LOADING,
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is there to ask again when the row changes
  useEffect(() => {
    if (execution === undefined) return;
    let stopped = false;
    const timer = setTimeout(() => {
      void Promise.all([settled(source.context(execution)), settled(source.disk(execution))]).then(
        ([context, disk]) => {
          if (!stopped) setData({ id: execution, data: { context, disk } });
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [source, execution, version]);
  // What was read of another execution is not this one's: it loads.
  return data.id === execution ? data.data : LOADING;
}

/** The answer, or the Error it failed with. */
async function settled<T>(promise: Promise<T>): Promise<T | Error> {
  try {
    return await promise;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
