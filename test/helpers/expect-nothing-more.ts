/**
 * Proves an absence as well as a test can: watches for `ms` that `happened` stays false, polling, and fails
 * at once, naming `what`, when it turns true. For "and nothing more arrives" (a resend, a duplicate, a
 * cancelled step) after the wanted effect was awaited; the window is the claim, so it is named, not slept.
 */
export async function expectNothingMore(
  what: string,
  happened: () => boolean | Promise<boolean>,
  ms: number,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await happened()) throw new Error(`expected no ${what} within ${ms} ms, but there was`);
    if (Date.now() >= deadline) return;
    await new Promise((r) => setTimeout(r, Math.min(everyMs, deadline - Date.now())));
  }
}
