/** Runs work for one account after the previous work for that account has settled. */
export type PerAccountQueue = <T>(appId: string, work: () => Promise<T>) => Promise<T>;

/**
 * One at a time per account, inside this process. A counted cancellation holds its account's claim lock
 * (exclusive) in a transaction of its own, so Postgres runs them one at a time anyway; queuing them here,
 * before they take a pooled connection, keeps a thousand concurrent cancellations of one account from
 * holding every connection of the pool while they wait for that lock (the requests behind them then
 * failed, waiting for a connection). Work for other accounts is not held up. A failed work does not stop
 * the work queued after it.
 */
export function createPerAccountQueue(): PerAccountQueue {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(appId: string, work: () => Promise<T>): Promise<T> => {
    const result = (tails.get(appId) ?? Promise.resolve()).then(work, work);
    const tail = result.catch(() => undefined);
    tails.set(appId, tail);
    void tail.then(() => {
      if (tails.get(appId) === tail) tails.delete(appId);
    });
    return result;
  };
}
