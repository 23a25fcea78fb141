import type { Scenario } from './scenarios';
import { percentile } from './tally';
import { walMark, walPerMessage } from './wal';

const DAY_MS = 86_400_000;

export interface SingleRequestsResult {
  /** Messages per second, one per call, `inFlight` calls at once. */
  readonly perSecond: number;
  /** Call latency (send → durably accepted), ms. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly inFlight: number;
  /** The call measured: `POST /v1/messages`, `queue.add`, `send`. */
  readonly call: string;
  /** Postgres WAL bytes per message while they were scheduled (see wal.ts). */
  readonly walBytesPerMessage: number;
}

/**
 * Scenario 7 (issue 13, target 6): other backends schedule one reminder per call. `sizes.single` messages
 * due a day ahead, each through the system's single-message call (`POST /v1/messages` for wechat-drip;
 * the peers' own `queue.add` / `send`), `sizes.singleConcurrency` calls in flight, after a short warm-up.
 */
export async function singleRequests(s: Scenario): Promise<SingleRequestsResult> {
  const scheduleOne = s.system.scheduleOne?.bind(s.system);
  if (!scheduleOne) throw new Error(`${s.system.name} has no single-message call`);
  const { single: count, singleConcurrency: inFlight } = s.sizes;
  const dueAt = Date.now() + DAY_MS;
  const run = async (from: number, n: number, latencies: number[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < n) {
          const i = from + next++;
          const started = performance.now();
          await scheduleOne({ tag: `${s.tag}-${i}`, openid: `o-${s.tag}-${i % 1000}`, dueAt: dueAt + i });
          latencies.push(performance.now() - started);
        }
      }),
    );
  };
  await run(0, Math.min(500, count), []); // warm-up: connections open, code compiled
  const latencies: number[] = [];
  const wal = await walMark(s.env.databaseUrl);
  const started = performance.now();
  await run(1_000_000, count, latencies);
  const seconds = (performance.now() - started) / 1000;
  const walBytesPerMessage = walPerMessage(wal, await walMark(s.env.databaseUrl), count);
  latencies.sort((a, b) => a - b);
  const result: SingleRequestsResult = {
    perSecond: count / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1],
    inFlight,
    call: s.system.singleCall ?? 'scheduleOne',
    walBytesPerMessage,
  };
  s.log(
    `  single requests (${inFlight} in flight): ${Math.round(result.perSecond)}/s, p50 ${Math.round(result.p50)}` +
      ` p99 ${Math.round(result.p99)} ms, WAL ${Math.round(walBytesPerMessage)} B/message`,
  );
  return result;
}
