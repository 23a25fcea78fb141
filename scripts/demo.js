#!/usr/bin/env node
// `make demo`: against the service and simulator that run-local.sh started (or any instance the environment
// points at, see scripts/lib/local-env.js), shows two things live and checks what it expected of each:
//
// 1. A drip: a follow from its QR code gets 3 messages within the follow window; DEMO_FOLLOWS (1,000)
//    follows at ~50 per second, until every expected message is sent.
// 2. A journey (docs/sequences.md "Journeys"): a follow from its QR code gets an invitation to reply 1, and
//    the journey waits WAIT_MS for that reply: a reply takes the yes path (the coupon), silence takes the no
//    path at the timeout (a reminder). Its goal is a reply containing 领取. A fifth as many followers as
//    DEMO_FOLLOWS (at least 10), played by the simulator on cue (docs/simulator.md "Followers on cue"): by
//    i % 10, 4 in 10 reply 1 two seconds after the invitation and half of those then send 领取; the other 6
//    in 10 stay silent. So the yes path, the no path and the conversions have exact expected counts.

const { env, api, sim, appId } = require('./lib/local-env').localInstance();
const auth = { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' };
const FOLLOWS = Number(env.DEMO_FOLLOWS || 1000);
const JOURNEY_FOLLOWS = Math.max(10, Math.round(FOLLOWS / 5));
const PER_SECOND = 50;
const STEPS = 3;
const WAIT_MS = 15_000;
const REPLY_AFTER_MS = 2000;
const CLAIM_AFTER_MS = 1500;
const REFRESH_MS = 500;

const tty = Boolean(process.stdout.isTTY);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const bar = (done, total, width = 24) => {
  const full = Math.round((done / total) * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
};
const percent = (rate) => `${(rate * 100).toFixed(1)} %`;

async function call(method, url, body, headers = auth) {
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}
const simCall = (method, path, body) =>
  call(method, `${sim}${path}`, body, { 'content-type': 'application/json' });

async function createSequence(definition) {
  const res = await fetch(`${api}/v1/sequences`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ appId, status: 'active', ...definition }),
  });
  if (res.status !== 201) throw new Error(`could not create "${definition.name}": ${await res.text()}`);
  return (await res.json()).id;
}

const results = (id) => call('GET', `${api}/v1/sequences/${id}/results`);
const text = (content) => ({ msgtype: 'text', text: { content } });

/** Follows `count` openids from `scene` at PER_SECOND; `progress.followed` counts the follows done. */
function followAll(count, openidOf, scene, progress) {
  const follow = async (i) => {
    await simCall('POST', `/__sim/users/${encodeURIComponent(openidOf(i))}/follow`, { appId, scene });
    progress.followed++;
  };
  return (async () => {
    for (let i = 0; i < count; i += PER_SECOND / 10) {
      const t = Date.now();
      await Promise.all(
        Array.from({ length: Math.min(PER_SECOND / 10, count - i) }, (_, k) => follow(i + k)),
      );
      await sleep(Math.max(0, 100 - (Date.now() - t)));
    }
  })();
}

/** A block of lines redrawn in place on a terminal; elsewhere (a pipe, a log) printed every 5 s and at the end. */
function liveBlock() {
  let drawn = 0;
  let printedAt = 0;
  return (lines, final = false) => {
    if (tty) {
      const up = drawn ? `\x1b[${drawn}A\r` : '';
      process.stdout.write(up + lines.map((l) => `${l}\x1b[K\n`).join(''));
      drawn = lines.length;
    } else if (final || Date.now() - printedAt >= 5000) {
      process.stdout.write(`${lines.join('\n')}\n`);
      printedAt = Date.now();
    }
  };
}

/** Messages of `steps` (step numbers) sent, and finished any way (sent, skipped, failed, cancelled, unknown). */
function stepTotals(all, steps) {
  const rows = all.steps.filter((s) => steps.includes(s.stepIndex));
  const reasons = (byReason) => sum(Object.values(byReason));
  return {
    sent: sum(rows.map((s) => s.sent)),
    finished: sum(rows.map((s) => s.sent + s.cancelled + s.unknown + reasons(s.skipped) + reasons(s.failed))),
  };
}

async function welcomeDrip(run) {
  const id = await createSequence({
    name: `demo welcome ${run}`,
    trigger: { type: 'subscribe', scene: `demo${run}` },
    steps: [0, 5000, 10000].map((offsetMs, i) => ({
      offsetMs,
      message: text(`欢迎关注！第 ${i + 1} 条 (demo ${run})`),
    })),
  });
  console.log(`1. demo sequence ${id}: a follow from QR scene demo${run} → ${STEPS} messages over 10 s`);

  const progress = { followed: 0 };
  const following = followAll(FOLLOWS, (i) => `o-demo-${run}-${i}`, `demo${run}`, progress);
  const expected = FOLLOWS * STEPS;
  const deadline = Date.now() + 180_000;
  const draw = liveBlock();
  for (;;) {
    const r = await results(id);
    const sent = sum(r.steps.map((s) => s.sent));
    const skipped = sum(r.steps.map((s) => sum(Object.values(s.skipped))));
    const failed = sum(r.steps.map((s) => sum(Object.values(s.failed))));
    const late = r.steps.map((s) => s.latenessMs).filter(Boolean);
    const p50 = late.length ? Math.max(...late.map((l) => l.p50)) : 0;
    const p99 = late.length ? Math.max(...late.map((l) => l.p99)) : 0;
    const done = sent + skipped + failed >= expected || Date.now() > deadline;
    draw(
      [
        `   follows ${bar(progress.followed, FOLLOWS)} ${progress.followed}/${FOLLOWS}`,
        `   sent ${sent}/${expected}  skipped ${skipped}  failed ${failed}  lateness p50 ${p50} ms p99 ${p99} ms`,
      ],
      done,
    );
    if (done) {
      await following;
      const ok = sent === expected;
      console.log(ok ? `done: all ${expected} messages sent` : `stopped: ${sent} of ${expected} sent`);
      return { id, ok };
    }
    await sleep(REFRESH_MS);
  }
}

async function journey(run) {
  // Who does what, by i % 10: the simulator plays them through the cues below (their openid prefixes).
  const prefix = `o-journey-${run}-`;
  const groupOf = (i) => (i % 10 < 2 ? 'reply-claim' : i % 10 < 4 ? 'reply' : 'silent');
  const openidOf = (i) => `${prefix}${groupOf(i)}-${i}`;
  const groups = Array.from({ length: JOURNEY_FOLLOWS }, (_, i) => groupOf(i));
  const expect = {
    yes: groups.filter((g) => g !== 'silent').length,
    no: groups.filter((g) => g === 'silent').length,
    converted: groups.filter((g) => g === 'reply-claim').length,
  };

  const invitation = `回复 1 领取新人优惠券`;
  const coupon = `新人优惠券已到账`;
  const id = await createSequence({
    name: `demo journey ${run}`,
    trigger: { type: 'subscribe', scene: `journey${run}` },
    steps: [{ offsetMs: 0, message: text(`欢迎关注！${invitation} (demo ${run})`) }],
    wait: { until: { type: 'message', keyword: '1' }, timeoutMs: WAIT_MS, yes: 'yes', no: 'no' },
    paths: {
      yes: { steps: [{ offsetMs: 0, message: text(`${coupon}：满 50 减 10。回复「领取」放入卡包`) }] },
      no: { steps: [{ offsetMs: 0, message: text(`还在吗？回复 1，新人优惠券今天仍可领 (demo ${run})`) }] },
    },
    goal: { until: { type: 'message', keyword: '领取' } },
  });
  console.log(
    `\n2. demo journey ${id}: a follow from QR scene journey${run}\n` +
      `   → "${invitation}", then a wait of ${WAIT_MS / 1000} s for a reply containing 1:\n` +
      `   yes → the coupon, no → a reminder; goal: a reply containing 领取\n` +
      `   ${JOURNEY_FOLLOWS} followers on cue: ${expect.yes} reply 1 after ${REPLY_AFTER_MS / 1000} s (${expect.converted} then send 领取), ${expect.no} stay silent`,
  );

  // Only this account's followers of this run (openid prefix) answer; the list replaces the simulator's
  // cues, deleted again at the end.
  await simCall('POST', '/__sim/cues', {
    cues: [
      {
        appId,
        openidPrefix: `${prefix}reply`,
        when: { contains: invitation },
        then: { action: 'message', content: '1' },
        afterMs: REPLY_AFTER_MS,
      },
      {
        appId,
        openidPrefix: `${prefix}reply-claim`,
        when: { contains: coupon },
        then: { action: 'message', content: '领取' },
        afterMs: CLAIM_AFTER_MS,
      },
    ],
  });
  try {
    const progress = { followed: 0 };
    const following = followAll(JOURNEY_FOLLOWS, openidOf, `journey${run}`, progress);
    let followedAt = null;
    const followed = () => (followedAt = Date.now());
    following.then(followed, followed);
    const draw = liveBlock();
    for (;;) {
      const r = await results(id);
      const path = (name) =>
        r.paths.find((p) => p.path === name) ?? { entered: 0, steps: [], converted: 0, wait: null };
      const [main, yes, no] = ['main', 'yes', 'no'].map(path);
      const wait = main.wait ?? { waiting: 0, yes: 0, no: 0, ended: 0 };
      const conversions = r.conversions ?? { converted: 0, rate: 0 };
      const line = (name, p, what) => {
        const { sent } = stepTotals(r, p.steps);
        const planned = p.entered * p.steps.length;
        return `   ${name.padEnd(4)} entered ${String(p.entered).padStart(4)}  sent ${String(sent).padStart(4)}/${String(planned).padEnd(4)}  ${what}`;
      };
      const all = stepTotals(
        r,
        [main, yes, no].flatMap((p) => p.steps),
      );
      const planned = sum([main, yes, no].map((p) => p.entered * p.steps.length));
      const settled =
        followedAt !== null &&
        main.entered === JOURNEY_FOLLOWS &&
        wait.waiting === 0 &&
        wait.yes + wait.no + wait.ended === JOURNEY_FOLLOWS &&
        all.finished === planned &&
        conversions.converted >= expect.converted;
      const late = followedAt !== null && Date.now() > followedAt + WAIT_MS + 30_000;
      draw(
        [
          `   follows ${bar(progress.followed, JOURNEY_FOLLOWS)} ${progress.followed}/${JOURNEY_FOLLOWS}`,
          line('main', main, 'invitation: 回复 1'),
          line('yes', yes, 'coupon, on a reply containing 1'),
          line('no', no, `reminder, after ${WAIT_MS / 1000} s without one`),
          `   wait yes ${wait.yes}  no ${wait.no}  waiting ${wait.waiting}${wait.ended ? `  ended ${wait.ended}` : ''}`,
          `   goal converted ${conversions.converted} of ${main.entered} (${percent(conversions.rate)})`,
        ],
        settled || late,
      );
      if (settled || late) {
        await following;
        const checks = [
          [
            `every follower enrolled: ${main.entered} of ${JOURNEY_FOLLOWS}`,
            main.entered === JOURNEY_FOLLOWS,
          ],
          [
            `replied 1 on cue → yes path: ${yes.entered} (expected ${expect.yes})`,
            yes.entered === expect.yes,
          ],
          [
            `silent → no path at the ${WAIT_MS / 1000} s timeout: ${no.entered} (expected ${expect.no})`,
            no.entered === expect.no && wait.no === expect.no && wait.waiting === 0,
          ],
          [
            `sent 领取 on cue → converted: ${conversions.converted}, ${percent(conversions.rate)} (expected ${expect.converted}, on the coupon: ${yes.converted})`,
            conversions.converted === expect.converted && yes.converted === expect.converted,
          ],
          [`every message sent: ${all.sent} of ${planned}`, all.sent === planned && planned > 0],
        ];
        for (const [what, ok] of checks) console.log(`   ${ok ? 'ok  ' : 'FAIL'} ${what}`);
        const ok = checks.every(([, passed]) => passed);
        console.log(ok ? 'done: the journey went as cued' : 'stopped: the journey did not go as cued');
        return { id, ok };
      }
      await sleep(REFRESH_MS);
    }
  } finally {
    await simCall('DELETE', '/__sim/cues');
  }
}

async function main() {
  const run = Date.now().toString(36);
  const welcome = await welcomeDrip(run);
  const journeyRun = await journey(run);
  console.log(`\nAdmin page: ${api}/admin/   (sign in with ADMIN_TOKEN from .env)`);
  console.log(`   the journey's results: ${api}/admin/sequences/${journeyRun.id}`);
  console.log(`   the drip's results:    ${api}/admin/sequences/${welcome.id}`);
  return welcome.ok && journeyRun.ok;
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err) => {
    console.error(err.message);
    process.exit(1);
  },
);
