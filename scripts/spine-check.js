#!/usr/bin/env node
// Acceptance check against a running `make run`: 1,000 followers write in (opening their contact
// windows), then it schedules 1,000 customer-service messages with delays of 1–10 s,
// cancels 100 (50 by id, 50 by cancel key), and checks from the simulator's record that exactly the
// other 900 arrived, each once, with the lateness (arrival − due time) it prints.
// Usage: node scripts/spine-check.js   (reads ADMIN_TOKEN etc. from the environment or .env)

const { env, api, sim, appId } = require('./lib/local-env').localInstance();
const { requireRunning } = require('./lib/local-env');
const { postBatch } = require('./lib/batch');
const auth = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
const COUNT = 1000;

async function main() {
  await requireRunning(api);
  const run = Date.now().toString(36);
  // Customer-service messages need an open contact window: each follower first writes in (through the
  // simulator, which pushes the message to the webhook), opening 5 messages / 48 h under the official rules.
  for (let i = 0; i < COUNT; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, k) =>
        fetch(`${sim}/__sim/users/o-check-${run}-${i + k}/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ appId, content: 'hi' }),
        }),
      ),
    );
  }
  const since = (await (await fetch(`${sim}/__sim/stats`)).json()).received;
  const lines = Array.from({ length: COUNT }, (_, i) =>
    JSON.stringify({
      appId,
      openid: `o-check-${run}-${i}`,
      message: { msgtype: 'text', text: { content: `check ${run} ${i}` } },
      delayMs: 1000 + Math.floor((i * 9000) / COUNT),
      // The cancelled ones are the last 100 (due 9–10 s ahead), so the cancellations surely come first.
      ...(i >= COUNT - 50 ? { cancelKey: `check-${run}-${i % 5}` } : {}),
    }),
  );
  const results = await postBatch(api, env.ADMIN_TOKEN, lines);
  const accepted = results.filter((r) => r.ok);
  if (accepted.length !== COUNT)
    throw new Error(`accepted ${accepted.length} of ${COUNT}: ${JSON.stringify(results.at(-1))}`);
  const dueByTag = new Map(accepted.map((r) => [`check ${run} ${r.line - 1}`, Date.parse(r.dueAt)]));
  const deletes = await Promise.all(
    accepted
      .slice(COUNT - 100, COUNT - 50)
      .map((r) => fetch(`${api}/v1/messages/${r.id}`, { method: 'DELETE', headers: auth })),
  );
  const refused = deletes.filter((r) => r.status !== 200).length;
  if (refused > 0) throw new Error(`${refused} cancellations by id were refused`);
  for (let k = 0; k < 5; k++) {
    await fetch(`${api}/v1/cancellations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ appId, cancelKey: `check-${run}-${k}`, reason: 'spine check' }),
    });
  }
  console.log(`scheduled ${COUNT}, cancelled 100; waiting for delivery…`);
  await new Promise((r) => setTimeout(r, 13_000));
  const got = (await (await fetch(`${sim}/__sim/messages?limit=100000`)).json()).messages.filter(
    (m) => m.seq > since,
  );
  const counts = new Map();
  const lateness = [];
  for (const m of got) {
    const tag = m.body.text.content;
    if (!dueByTag.has(tag)) continue;
    counts.set(tag, (counts.get(tag) || 0) + 1);
    lateness.push(m.receivedAt - dueByTag.get(tag));
  }
  const cancelled = [...dueByTag.keys()].slice(COUNT - 100).filter((t) => counts.has(t)).length;
  const twice = [...counts.values()].filter((n) => n > 1).length;
  const missing = [...dueByTag.keys()].slice(0, COUNT - 100).filter((t) => !counts.has(t)).length;
  lateness.sort((a, b) => a - b);
  const pct = (p) => lateness[Math.min(lateness.length - 1, Math.ceil((p / 100) * lateness.length) - 1)];
  console.log(
    `delivered ${counts.size} (expected 900), twice ${twice}, cancelled-but-sent ${cancelled}, missing ${missing}`,
  );
  console.log(`lateness ms: p50 ${pct(50)}, p99 ${pct(99)}, max ${lateness.at(-1)}`);
  const ok = counts.size === 900 && twice === 0 && cancelled === 0 && missing === 0 && pct(99) < 1500;
  console.log(ok ? 'OK' : 'FAILED');
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
