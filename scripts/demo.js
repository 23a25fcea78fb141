#!/usr/bin/env node
// `make demo`: against the service and simulator that run-local.sh started, creates a demo drip
// (a follow from the `demo` QR code gets 3 messages within the follow window), simulates 1,000 follows at
// ~50 per second, and shows a live summary until every expected message is sent.

const { env, api, sim, appId } = require('./lib/local-env').localInstance();
const auth = { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' };
const FOLLOWS = Number(env.DEMO_FOLLOWS || 1000);
const PER_SECOND = 50;
const STEPS = 3;

const bar = (done, total, width = 24) => {
  const full = Math.round((done / total) * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
};

async function main() {
  const run = Date.now().toString(36);
  const res = await fetch(`${api}/v1/sequences`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      appId,
      name: `demo welcome ${run}`,
      status: 'active',
      trigger: { type: 'subscribe', scene: `demo${run}` },
      steps: [0, 5000, 10000].map((offsetMs, i) => ({
        offsetMs,
        message: { msgtype: 'text', text: { content: `欢迎关注！第 ${i + 1} 条 (demo ${run})` } },
      })),
    }),
  });
  if (res.status !== 201) throw new Error(`could not create the demo sequence: ${await res.text()}`);
  const { id } = await res.json();
  console.log(`demo sequence ${id}: a follow from QR scene demo${run} → ${STEPS} messages over 10 s`);

  let followed = 0;
  const follow = async (i) => {
    await fetch(`${sim}/__sim/users/o-demo-${run}-${i}/follow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId, scene: `demo${run}` }),
    });
    followed++;
  };
  const following = (async () => {
    for (let i = 0; i < FOLLOWS; i += PER_SECOND / 10) {
      const t = Date.now();
      await Promise.all(
        Array.from({ length: Math.min(PER_SECOND / 10, FOLLOWS - i) }, (_, k) => follow(i + k)),
      );
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - t))));
    }
  })();

  const expected = FOLLOWS * STEPS;
  let results = { steps: [] };
  const deadline = Date.now() + 180_000;
  for (;;) {
    results = await (await fetch(`${api}/v1/sequences/${id}/results`, { headers: auth })).json();
    const sum = (k) => results.steps.reduce((n, s) => n + (typeof s[k] === 'number' ? s[k] : 0), 0);
    const skipped = results.steps.reduce(
      (n, s) => n + Object.values(s.skipped).reduce((a, b) => a + b, 0),
      0,
    );
    const failed = results.steps.reduce((n, s) => n + Object.values(s.failed).reduce((a, b) => a + b, 0), 0);
    const late = results.steps.map((s) => s.latenessMs).filter(Boolean);
    const p50 = late.length ? Math.max(...late.map((l) => l.p50)) : 0;
    const p99 = late.length ? Math.max(...late.map((l) => l.p99)) : 0;
    process.stdout.write(
      `\rfollows ${bar(followed, FOLLOWS)} ${followed}/${FOLLOWS}  sent ${sum('sent')}/${expected}  skipped ${skipped}  failed ${failed}  lateness p50 ${p50} ms p99 ${p99} ms   `,
    );
    if (sum('sent') + skipped + failed >= expected || Date.now() > deadline) {
      process.stdout.write('\n');
      await following;
      const ok = sum('sent') === expected;
      console.log(ok ? `done: all ${expected} messages sent` : `stopped: ${sum('sent')} of ${expected} sent`);
      console.log(`\nAdmin page: ${api}/admin   (sign in with ADMIN_TOKEN from .env)`);
      return ok;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err) => {
    console.error(err.message);
    process.exit(1);
  },
);
