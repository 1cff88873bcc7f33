/**
 * Closing within a budget: what a stopping service or cluster worker does with the executions it
 * drives — asks them to close, gives them a while, then kills what is left and waits for the rest.
 */

/**
 * Resolves once `closing` has settled. When it has not settled `budgetMs` after the call, `onExpired`
 * is called once (the caller kills what is still running) and the wait goes on. `closing` must not
 * reject (the callers' `finished` and `close()` promises do not).
 */
export async function closeWithin(closing: Promise<unknown>, budgetMs: number, onExpired: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), budgetMs);
  });
  try {
    if ((await Promise.race([closing, expired])) === 'expired') onExpired();
  } finally {
    clearTimeout(timer);
  }
  await closing;
}
