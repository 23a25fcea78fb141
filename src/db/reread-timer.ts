/**
 * Calls `reread` after `delayMs()` and again after each call until stopped, reading the delay anew each
 * time (shorter while a table could not be read yet). The timer does not keep the process alive.
 */
export function startRereadTimer(delayMs: () => number, reread: () => void): { stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      reread();
      schedule();
    }, delayMs());
    timer.unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
