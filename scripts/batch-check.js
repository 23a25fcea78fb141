#!/usr/bin/env node
// Acceptance check against a running `make run`: streams one NDJSON batch of N template reminders
// (default 200,000: "a coupon opens for 200,000 subscribers") without holding it in memory, reads the
// per-line answers as they stream back, then waits until the simulator has received every one, once.
// Usage: node scripts/batch-check.js [N]   (reads ADMIN_TOKEN etc. from the environment or .env)
const { Readable } = require('node:stream');

const { env, api, sim, appId } = require('./lib/local-env').localInstance();
const { requireRunning } = require('./lib/local-env');
const COUNT = Number(process.argv[2] || 200_000);

async function* lines(run) {
  for (let i = 0; i < COUNT; i++) {
    yield `${JSON.stringify({
      appId,
      openid: `o-coupon-${i}`,
      channel: 'template',
      message: { template_id: 'TPL_COUPON', data: { thing1: { value: `券 ${run} ${i}` } } },
      delayMs: 2000,
      idempotencyKey: `coupon-${run}-${i}`,
    })}\n`;
  }
}

async function main() {
  await requireRunning(api);
  const run = Date.now().toString(36);
  const since = (await (await fetch(`${sim}/__sim/stats`)).json()).received;
  const t0 = Date.now();
  const res = await fetch(`${api}/v1/messages/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' },
    body: Readable.from(lines(run)),
    duplex: 'half',
  });
  let summary = null;
  let buffered = '';
  for await (const chunk of res.body) {
    buffered += Buffer.from(chunk).toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop();
    for (const p of parts)
      if (p.startsWith('{"summary"') || p.startsWith('{"aborted"')) summary = JSON.parse(p);
  }
  const acceptedMs = Date.now() - t0;
  console.log(
    `accepted in ${(acceptedMs / 1000).toFixed(1)} s (${Math.round(COUNT / (acceptedMs / 1000))} lines/s):`,
    JSON.stringify(summary),
  );
  if (!summary?.summary || summary.summary.accepted !== COUNT) throw new Error('not every line was accepted');
  // Count this run's reminders (by their text) as they arrive: other traffic may share the simulator.
  const seen = new Set();
  let dup = 0;
  let after = since;
  const deadline = Date.now() + 900_000;
  while (seen.size < COUNT && Date.now() < deadline) {
    const page = await (await fetch(`${sim}/__sim/messages?since=${after}&limit=100000`)).json();
    for (const m of page.messages) {
      const tag = m.body?.data?.first?.value;
      if (typeof tag === 'string' && tag.startsWith(`券 ${run} `)) {
        if (seen.has(tag)) dup++;
        seen.add(tag);
      }
      after = m.seq;
    }
    if (!page.hasMore) await new Promise((r) => setTimeout(r, 2000));
  }
  await new Promise((r) => setTimeout(r, 3000)); // a duplicate would arrive now
  const tail = await (await fetch(`${sim}/__sim/messages?since=${after}&limit=100000`)).json();
  for (const m of tail.messages) if (String(m.body?.data?.first?.value).startsWith(`券 ${run} `)) dup++;
  console.log(
    `delivered ${seen.size} of ${COUNT} in ${((Date.now() - t0) / 1000).toFixed(1)} s, duplicates ${dup}`,
  );
  const ok = seen.size === COUNT && dup === 0;
  console.log(ok ? 'OK' : 'FAILED');
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
