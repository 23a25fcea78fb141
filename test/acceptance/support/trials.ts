import type { ApiClient } from './api-client';
import { FINAL_STATUSES } from './expectations';
import { sleep, waitFor } from './wait-for';

/** Runs `task` on every item with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return results;
}

/** Runs `task` at `at` (epoch ms), or now if that has passed. */
export async function at<R>(when: number, task: () => Promise<R>): Promise<R> {
  await sleep(Math.max(0, when - Date.now()));
  return task();
}

/** A uniformly random offset in [-spreadMs, +spreadMs]. */
export const jitter = (spreadMs: number): number => Math.round((Math.random() * 2 - 1) * spreadMs);

/** Waits until every message in `ids` reads a final status (sent, skipped, failed, cancelled, unknown). */
export async function untilAllFinal(
  api: ApiClient,
  ids: readonly string[],
  timeoutMs = 60_000,
): Promise<void> {
  let open = [...ids];
  await waitFor(
    async () => {
      const statuses = await mapLimit(open, 32, async (id) => (await api.message(id)).status);
      open = open.filter((_, i) => !(FINAL_STATUSES as readonly string[]).includes(statuses[i]));
      return open.length === 0;
    },
    `all ${ids.length} messages to reach a final status`,
    { timeoutMs, intervalMs: 250 },
  );
}
