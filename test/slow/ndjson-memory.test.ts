import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ADMIN_TOKEN, createHarness, type Harness, waitFor } from '../helpers/harness';
import { spawnRole, withSearchPath } from '../helpers/services';
import { aTextMessage } from '../helpers/builders';

// A long NDJSON body of rejected lines must not pile up in the api's memory nor stall its event loop.
// The api runs as a child process (dist/, built by `make test`) so that its RSS is its own.
// NDJSON_MEMORY_LINES=2000000 for the full-size check (about a minute); the numbers go to
// test-artifacts/ndjson-memory.json.
const LINES = Number(process.env.NDJSON_MEMORY_LINES ?? 200_000);
const MAX_RSS_GROWTH_MB = 50;
/** How long another request may wait while the batch streams; a stalled event loop takes seconds. */
const MAX_PROBE_MS = 1_000;
const LINES_PER_PULL = 1_000;

let h: Harness;
let api: ChildProcess;
let url: string;

const rssMb = (pid: number): number => {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1];
  return Number(kb) / 1024;
};

const headers = {
  authorization: `Bearer ${ADMIN_TOKEN}`,
  'content-type': 'application/x-ndjson',
};

/** Posts `lines` copies of `line`, generated as the request pulls them; resolves to the answer's summary. */
async function postBatch(line: string, lines: number): Promise<unknown> {
  let sent = 0;
  const chunk = new TextEncoder().encode(`${line}\n`.repeat(LINES_PER_PULL));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= lines) return controller.close();
      controller.enqueue(chunk);
      sent += LINES_PER_PULL;
    },
  });
  const res = await fetch(`${url}/v1/messages/batch`, { method: 'POST', headers, body, duplex: 'half' });
  // Read as it streams (as a client must, or backpressure pauses the api); only the summary is kept.
  let last = '';
  let tail = '';
  for await (const part of res.body!.pipeThrough(new TextDecoderStream())) {
    const split = (tail + part).split('\n');
    tail = split.pop()!;
    if (split.length > 0) last = split.at(-1)!;
  }
  return JSON.parse(tail || last) as unknown;
}

beforeAll(async () => {
  h = await createHarness({ ROLE: 'api' });
  url = `http://127.0.0.1:${h.env.HTTP_PORT}`;
  api = spawnRole('api', {
    ...h.env,
    DATABASE_URL: withSearchPath(h.env.DATABASE_URL, h.db.schema),
    // A body must arrive within HTTP_REQUEST_TIMEOUT_MS (30 s): 2,000,000 lines take longer here.
    HTTP_REQUEST_TIMEOUT_MS: String(Math.max(30_000, LINES / 10)),
  });
  const up = await waitFor(
    () =>
      fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    20_000,
    100,
  );
  if (!up) throw new Error('the api did not start');
});
afterAll(async () => {
  api.kill('SIGTERM');
  await new Promise((r) => api.once('exit', r));
  await h.close();
});

/**
 * Runs `stream` while sampling the api's RSS and timing another request every 100 ms: the highest RSS and
 * the slowest answer seen meanwhile.
 */
async function watched<T>(
  stream: () => Promise<T>,
): Promise<{ result: T; peak: number; maxProbeMs: number }> {
  let peak = rssMb(api.pid!);
  let maxProbeMs = 0;
  let streaming = true;
  const sampling = (async () => {
    while (streaming) {
      peak = Math.max(peak, rssMb(api.pid!));
      const started = Date.now();
      await fetch(`${url}/v1/accounts`, { headers });
      maxProbeMs = Math.max(maxProbeMs, Date.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const result = await stream().finally(() => (streaming = false));
  await sampling;
  return { result, peak, maxProbeMs };
}

it(`a body of ${LINES.toLocaleString('en')} rejected lines: RSS grows by under ${MAX_RSS_GROWTH_MB} MB and other requests are answered meanwhile`, async () => {
  const invalid = JSON.stringify({
    appId: 'wxnobody',
    openid: 'o-memory',
    message: aTextMessage(''),
  });
  // Warm-up with a quarter of the lines (at most 50,000): code compiled and V8's heap grown to the size
  // a stream needs — which, for a stream that keeps nothing per line, does not depend on its length. The
  // baseline is the highest RSS seen during it: right after a stream RSS reads anywhere between the heap
  // before and after V8's next major collection (130–180 MB here, by luck), which made a baseline read
  // then swing the measured growth by tens of MB. What the measured body adds on top of the warm-up's
  // peak is what its extra lines kept.
  const warm = await watched(() => postBatch(invalid, Math.min(LINES / 4, 50_000)));
  const baseline = Math.max(warm.peak, rssMb(api.pid!));
  const started = Date.now();
  const { result: summary, peak, maxProbeMs } = await watched(() => postBatch(invalid, LINES));
  const report = {
    lines: LINES,
    seconds: (Date.now() - started) / 1000,
    baselineRssMb: Math.round(baseline),
    peakRssMb: Math.round(peak),
    growthMb: Math.max(0, Math.round(peak - baseline)),
    maxProbeMs,
  };
  mkdirSync('test-artifacts', { recursive: true });
  writeFileSync('test-artifacts/ndjson-memory.json', `${JSON.stringify(report, null, 2)}\n`);

  expect(summary).toEqual({ summary: { lines: LINES, accepted: 0, rejected: LINES } });
  expect(report.growthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
  expect(maxProbeMs).toBeLessThan(MAX_PROBE_MS);
}, 300_000);
