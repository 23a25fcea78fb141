/**
 * Polls `condition` until it returns something other than `undefined` / `false` and returns that; after
 * `timeoutMs` throws an error saying what it waited for and what it saw last.
 */
export async function waitFor<T>(
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  { timeoutMs = 15_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last seen: ${seen})`);
    }
    await sleep(intervalMs);
  }
}

/** Waits `ms`. Only to let time pass (a due time, a lateness); never as proof that something did not happen. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
