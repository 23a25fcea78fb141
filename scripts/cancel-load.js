#!/usr/bin/env node
// Load check of cancellation against a running service (`make run`, or any api process): schedules
// messages an hour ahead through the NDJSON batch, then cancels them and prints one JSON line with the
// rate and the latencies it measured.
//   node scripts/cancel-load.js delete [messages=20000] [inFlight=20]         one DELETE /v1/messages/:id each
//   node scripts/cancel-load.js bulk [messages=100000] [inFlight=4] [size=5000] POST /v1/cancellations {ids}
// The first tenth of the DELETEs (at most 1,000) warm the process up and are left out of the numbers.
// Reads ADMIN_TOKEN, WECHAT_ACCOUNTS, HTTP_HOST/HTTP_PORT from the environment or .env.

const http = require('node:http');
const { api, appId, adminToken } = require('./lib/local-env').localInstance();
const { postBatch } = require('./lib/batch');
const auth = { authorization: `Bearer ${adminToken}` };
const BATCH_LINES = 10_000;

async function schedule(count, run) {
  const ids = [];
  const sendAt = new Date(Date.now() + 3_600_000).toISOString();
  for (let start = 0; start < count; start += BATCH_LINES) {
    const lines = [];
    for (let i = start; i < Math.min(count, start + BATCH_LINES); i++) {
      lines.push(
        JSON.stringify({
          appId,
          openid: `o-load-${run}-${i % 1000}`,
          message: { msgtype: 'text', text: { content: `load ${run} ${i}` } },
          sendAt,
        }),
      );
    }
    const results = (await postBatch(api, adminToken, lines)).filter((r) => 'ok' in r);
    const refused = results.find((r) => !r.ok);
    if (refused || results.length !== lines.length) throw new Error(`scheduling: ${JSON.stringify(refused)}`);
    ids.push(...results.map((r) => r.id));
  }
  return ids;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (x) => Math.round(x * 100) / 100;

/** Runs `work(item)` over `items` with `inFlight` at once; each call's duration (ms). */
async function drive(items, inFlight, work) {
  const durations = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) {
        const item = items[next++];
        const t = performance.now();
        await work(item);
        durations.push(performance.now() - t);
      }
    }),
  );
  return durations;
}

function summary(durations) {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    p50: ms(quantile(sorted, 0.5)),
    p95: ms(quantile(sorted, 0.95)),
    p99: ms(quantile(sorted, 0.99)),
    max: ms(sorted.at(-1)),
  };
}

async function deleteEach(ids, inFlight) {
  const warm = Math.min(1000, Math.floor(ids.length / 10));
  // node:http with keep-alive rather than fetch: the client costs less CPU than the service it measures.
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const cancel = (id) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        `${api}/v1/messages/${id}?reason=load`,
        { method: 'DELETE', headers: auth, agent },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`DELETE ${id}: ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  await drive(ids.slice(0, warm), inFlight, cancel);
  const measured = ids.slice(warm);
  const started = performance.now();
  const durations = await drive(measured, inFlight, cancel);
  const seconds = (performance.now() - started) / 1000;
  return {
    cancelled: measured.length,
    perSecond: Math.round(measured.length / seconds),
    ...summary(durations),
  };
}

async function bulk(ids, inFlight, size) {
  const chunks = [];
  for (let i = 0; i < ids.length; i += size) chunks.push(ids.slice(i, i + size));
  let cancelled = 0;
  const started = performance.now();
  const durations = await drive(chunks, inFlight, async (chunk) => {
    const res = await fetch(`${api}/v1/cancellations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ids: chunk, reason: 'load' }),
    });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`bulk: ${res.status} ${JSON.stringify(body)}`);
    cancelled += body.cancelled;
  });
  const seconds = (performance.now() - started) / 1000;
  if (cancelled !== ids.length) throw new Error(`cancelled ${cancelled} of ${ids.length}`);
  return { cancelled, perSecond: Math.round(cancelled / seconds), requestMs: summary(durations) };
}

async function main() {
  const [mode = 'delete', messages, inFlight, size] = process.argv.slice(2);
  if (mode !== 'delete' && mode !== 'bulk') throw new Error('mode: delete | bulk');
  const count = Number(messages ?? (mode === 'delete' ? 20_000 : 100_000));
  const concurrency = Number(inFlight ?? (mode === 'delete' ? 20 : 4));
  const ids = await schedule(count, Date.now().toString(36));
  const result =
    mode === 'delete'
      ? await deleteEach(ids, concurrency)
      : await bulk(ids, concurrency, Number(size ?? 5000));
  console.log(
    JSON.stringify({ mode, inFlight: concurrency, ...(size ? { size: Number(size) } : {}), ...result }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
