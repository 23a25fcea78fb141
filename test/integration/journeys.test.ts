import type { FollowerEventView, SequenceResults } from '../../src/contract';
import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { anOpenid, aSequence, type SequenceRequest } from '../helpers/builders';
import { createSequence, expectEventually, receivedTexts, SHORT_WINDOWS, textSteps } from '../helpers/drip';

/**
 * Issue 25: journeys — a path ending in a wait for what the follower does, its yes path started by the
 * action, its no path by the timeout; each taken once per enrollment, whatever races for it.
 */
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'journeytoken', windowPolicy: SHORT_WINDOWS };

let h: Harness;
let service: Service;
beforeAll(async () => {
  h = await createHarness(
    { WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]), RELAY_INTERVAL_MS: '200' },
    { enforceContactWindow: true },
  );
  service = await h.start();
}, 60_000);
afterAll(() => h.close());

const api = (method: string, path: string, body?: unknown) =>
  h.api(service, path, { method, body: body === undefined ? undefined : JSON.stringify(body) });

/** Scan `scene` → "<label> welcome"; wait `timeoutMs` for `until`: yes → "<label> yes", no → "<label> no". */
const aJourney = (
  label: string,
  until: NonNullable<SequenceRequest['wait']>['until'],
  timeoutMs: number,
  extra: Partial<SequenceRequest> = {},
): Partial<SequenceRequest> => ({
  name: `journey ${label}`,
  trigger: { type: 'scan', scene: label },
  steps: textSteps(`${label} welcome`, [0]),
  wait: { until, timeoutMs, yes: 'yes', no: 'no' },
  paths: { yes: { steps: textSteps(`${label} yes`, [0]) }, no: { steps: textSteps(`${label} no`, [0]) } },
  ...extra,
});

async function started(scene: string): Promise<string> {
  const openid = anOpenid(scene);
  await h.simulator.push('scan', openid, { appId: APP_ID, scene });
  await expectEventually(`${scene} welcome 1`, () => receivedTexts(h, openid).includes(`${scene} welcome 1`));
  return openid;
}

const waitsOf = async (openid: string) =>
  (
    await h.db.pool.query<{ path: string; outcome: string | null }>(
      `SELECT path, outcome FROM journey_waits WHERE app_id = $1 AND openid = $2 ORDER BY starts_at`,
      [APP_ID, openid],
    )
  ).rows;

describe('journeys: wait, then branch', () => {
  it('a reply takes the yes path at once, and the timeout then takes nothing', async () => {
    await createSequence(h, service, aJourney('reply', { type: 'message' }, 3000));
    const openid = await started('reply');
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'hi' });
    await expectEventually('reply yes 1', () => receivedTexts(h, openid).includes('reply yes 1'), 5000);
    expect(await waitsOf(openid)).toEqual([{ path: 'main', outcome: 'yes' }]);
    // The yes path starts at the reply: its step is due when the wait was met, not later.
    const { rows } = await h.db.pool.query<{ due: Date; met: Date }>(
      `SELECT m.due_at AS due, w.resolved_at AS met FROM scheduled_messages m
       JOIN journey_waits w ON w.enrollment_id = m.enrollment_id
       WHERE m.app_id = $1 AND m.openid = $2 AND m.step_index = 1`,
      [APP_ID, openid],
    );
    expect(rows.map((r) => r.due.getTime() - r.met.getTime())).toEqual([0]);
    await expectNothingMore('the no path', () => receivedTexts(h, openid).includes('reply no 1'), 4000);
  });

  it('no reply: the timeout takes the no path', async () => {
    await createSequence(h, service, aJourney('silent', { type: 'message' }, 1500));
    const openid = await started('silent');
    await expectEventually('silent no 1', () => receivedTexts(h, openid).includes('silent no 1'), 8000);
    expect(receivedTexts(h, openid)).toEqual(['silent welcome 1', 'silent no 1']);
    expect(await waitsOf(openid)).toEqual([{ path: 'main', outcome: 'no' }]);
  });

  it('a keyword wait ignores other messages; a second match takes nothing more', async () => {
    await createSequence(h, service, aJourney('kw', { type: 'message', keyword: 'YES' }, 4000));
    const openid = await started('kw');
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'maybe' });
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'oh yes' });
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'yes yes' });
    await expectEventually('kw yes 1', () => receivedTexts(h, openid).includes('kw yes 1'));
    await expectNothingMore(
      'a second yes path or the no path',
      () => receivedTexts(h, openid).length > 2,
      5000,
    );
    expect(receivedTexts(h, openid)).toEqual(['kw welcome 1', 'kw yes 1']);
  });

  it('an API event meets its wait: the answer names the path it continued', async () => {
    const id = await createSequence(h, service, aJourney('paid', { type: 'event', name: 'paid' }, 5000));
    const openid = await started('paid');
    const res = await api('POST', `/v1/followers/${APP_ID}/${openid}/events`, { name: 'paid' });
    expect(res.status).toBe(201);
    const answer = (await res.json()) as FollowerEventView;
    expect(answer.continued).toEqual([
      { sequenceId: id, enrollmentId: expect.any(String), path: 'yes', steps: 1 },
    ]);
    await expectEventually('paid yes 1', () => receivedTexts(h, openid).includes('paid yes 1'));
    const again = (await (
      await api('POST', `/v1/followers/${APP_ID}/${openid}/events`, { name: 'paid' })
    ).json()) as FollowerEventView;
    expect(again.continued).toEqual([]);
  });

  it('an exit while waiting ends the wait: neither path is taken', async () => {
    await createSequence(
      h,
      service,
      aJourney('leave', { type: 'click', key: 'MORE' }, 1500, {
        exits: [{ type: 'message', keyword: 'stop' }],
      }),
    );
    const openid = await started('leave');
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'stop' });
    await expectEventually('the wait ended', async () => (await waitsOf(openid))[0]?.outcome === 'ended');
    await h.simulator.push('click', openid, { appId: APP_ID, key: 'MORE' });
    await expectNothingMore('a path after the exit', () => receivedTexts(h, openid).length > 1, 3500);
  });

  it('an unfollow while waiting erases the wait and takes no path', async () => {
    await createSequence(h, service, aJourney('gone', { type: 'message' }, 1500));
    const openid = await started('gone');
    await h.simulator.push('unfollow', openid, { appId: APP_ID });
    await expectEventually('the wait erased', async () => (await waitsOf(openid)).length === 0);
    const { rows } = await h.db.pool.query(
      `SELECT w.outcome, w.openid FROM journey_waits w JOIN sequences s ON s.id = w.sequence_id WHERE s.name = 'journey gone'`,
    );
    expect(rows).toEqual([{ outcome: 'ended', openid: '' }]);
    await expectNothingMore('a path after the unfollow', () => receivedTexts(h, openid).length > 1, 3000);
  });

  it('a running enrollment keeps its version’s paths when the journey is edited', async () => {
    const request = aJourney('edited', { type: 'message' }, 5000);
    const id = await createSequence(h, service, request);
    const openid = await started('edited');
    const edit = await api('PUT', `/v1/sequences/${id}`, {
      ...request,
      appId: APP_ID,
      paths: {
        yes: { steps: textSteps('edited v2 yes', [0]) },
        no: { steps: textSteps('edited v2 no', [0]) },
      },
    });
    expect(edit.status).toBe(200);
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'hi' });
    await expectEventually('edited yes 1', () => receivedTexts(h, openid).includes('edited yes 1'));
    expect(receivedTexts(h, openid)).toEqual(['edited welcome 1', 'edited yes 1']);
  });

  it('an action and the timeout racing for one wait: one path each, never both', async () => {
    await createSequence(h, service, aJourney('race', { type: 'event', name: 'go' }, 50_000));
    const openids = await Promise.all(Array.from({ length: 20 }, () => started('race')));
    // Every wait falls due now; the timeouts and the events then race for them.
    await h.db.pool.query(
      `UPDATE journey_waits SET deadline = now() + interval '150 milliseconds' WHERE openid = ANY($1)`,
      [openids],
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all([
      service.timeouts!.runOnce(),
      service.timeouts!.runOnce(),
      ...openids.map((openid) => api('POST', `/v1/followers/${APP_ID}/${openid}/events`, { name: 'go' })),
    ]);
    await expectEventually('every wait resolved', async () => {
      const { rows } = await h.db.pool.query(
        `SELECT count(*)::int AS n FROM journey_waits WHERE openid = ANY($1) AND outcome IS NULL`,
        [openids],
      );
      return rows[0].n === 0;
    });
    for (const openid of openids)
      await expectEventually(`${openid}: a path`, () => receivedTexts(h, openid).length === 2);
    await expectNothingMore(
      'a second path for anyone',
      () => openids.some((openid) => receivedTexts(h, openid).length > 2),
      2000,
    );
    const outcomes = await Promise.all(openids.map(async (openid) => (await waitsOf(openid))[0].outcome));
    console.info(
      `race: ${outcomes.filter((o) => o === 'yes').length} yes, ${outcomes.filter((o) => o === 'no').length} no`,
    );
    openids.forEach((openid, i) =>
      expect(receivedTexts(h, openid)[1]).toBe(outcomes[i] === 'yes' ? 'race yes 1' : 'race no 1'),
    );
  });

  it('a pause ends the waits: no path starts, and resuming starts none', async () => {
    const id = await createSequence(h, service, aJourney('pause', { type: 'message' }, 1500));
    const openid = await started('pause');
    expect((await api('POST', `/v1/sequences/${id}/pause`)).status).toBe(200);
    expect(await waitsOf(openid)).toEqual([{ path: 'main', outcome: 'ended' }]);
    expect((await api('POST', `/v1/sequences/${id}/resume`)).status).toBe(200);
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'hi' });
    await expectNothingMore('a path after the pause', () => receivedTexts(h, openid).length > 1, 3000);
  });
});

describe('journeys: a path that waits again', () => {
  it('yes → wait again → its own no path, numbered across the journey, counted per path', async () => {
    const id = await createSequence(h, service, {
      name: 'two levels',
      trigger: { type: 'scan', scene: 'deep' },
      steps: textSteps('deep welcome', [0]),
      wait: { until: { type: 'message' }, timeoutMs: 5000, yes: 'replied', no: null },
      paths: {
        replied: {
          steps: textSteps('deep replied', [0]),
          wait: { until: { type: 'click', key: 'BUY' }, timeoutMs: 1500, yes: 'bought', no: 'hesitant' },
        },
        bought: { steps: textSteps('deep bought', [0]) },
        hesitant: { steps: textSteps('deep hesitant', [0]) },
      },
    });
    const openid = await started('deep');
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'hi' });
    await expectEventually(
      'deep hesitant 1',
      () => receivedTexts(h, openid).includes('deep hesitant 1'),
      8000,
    );
    expect(receivedTexts(h, openid)).toEqual(['deep welcome 1', 'deep replied 1', 'deep hesitant 1']);
    expect(await waitsOf(openid)).toEqual([
      { path: 'main', outcome: 'yes' },
      { path: 'replied', outcome: 'no' },
    ]);
    const { rows } = await h.db.pool.query<{ step_index: number }>(
      `SELECT step_index FROM scheduled_messages WHERE app_id = $1 AND openid = $2 ORDER BY due_at`,
      [APP_ID, openid],
    );
    // main 0, replied 1, bought 2, hesitant 3.
    expect(rows.map((r) => r.step_index)).toEqual([0, 1, 3]);
    const results = (await (await api('GET', `/v1/sequences/${id}/results`)).json()) as SequenceResults;
    expect(results.paths).toEqual([
      {
        version: 1,
        path: 'main',
        entered: 1,
        steps: [0],
        converted: 0,
        wait: { waiting: 0, yes: 1, no: 0, ended: 0 },
      },
      {
        version: 1,
        path: 'replied',
        entered: 1,
        steps: [1],
        converted: 0,
        wait: { waiting: 0, yes: 0, no: 1, ended: 0 },
      },
      { version: 1, path: 'bought', entered: 0, steps: [2], converted: 0, wait: null },
      { version: 1, path: 'hesitant', entered: 1, steps: [3], converted: 0, wait: null },
    ]);
  });
});

describe('journeys: the timeouts job', () => {
  it('a wait whose deadline passed while no worker ran takes its no path on the next pass', async () => {
    await createSequence(h, service, aJourney('atomic', { type: 'message' }, 50_000));
    const openid = await started('atomic');
    await h.db.pool.query(`UPDATE journey_waits SET deadline = now() - interval '1 hour' WHERE openid = $1`, [
      openid,
    ]);
    await expectEventually('atomic no 1', () => receivedTexts(h, openid).includes('atomic no 1'), 5000);
    expect(await waitsOf(openid)).toEqual([{ path: 'main', outcome: 'no' }]);
  });
});

describe('journeys: conversion goals', () => {
  it('an event reaching the goal converts once, attributed to the last message sent; with exit, it ends the journey', async () => {
    const id = await createSequence(h, service, {
      ...aJourney('goal', { type: 'message' }, 3000),
      goal: { until: { type: 'event', name: 'purchased' }, periodMs: 3_600_000, exit: true },
    });
    const openid = await started('goal');
    const post = async () =>
      (await (
        await api('POST', `/v1/followers/${APP_ID}/${openid}/events`, { name: 'purchased' })
      ).json()) as FollowerEventView;
    const first = await post();
    expect(first).toMatchObject({
      converted: 1,
      exited: [{ sequenceId: id, reason: 'exit:goal', cancelled: 0 }],
    });
    expect((await post()).converted).toBe(0);
    expect(await waitsOf(openid)).toEqual([{ path: 'main', outcome: 'ended' }]);
    await expectNothingMore('a path after the goal', () => receivedTexts(h, openid).length > 1, 4000);
    const results = (await (await api('GET', `/v1/sequences/${id}/results`)).json()) as SequenceResults;
    expect(results.conversions).toEqual({
      converted: 1,
      rate: 1,
      perStep: [{ version: 1, stepIndex: 0, variant: null, converted: 1 }],
    });
    expect(results.paths.map((p) => [p.path, p.converted])).toEqual([
      ['main', 1],
      ['yes', 0],
      ['no', 0],
    ]);
    expect(results.exited).toEqual({ 'exit:goal': 1 });
  });

  it('a keyword goal reached by a push counts per path; without exit the journey goes on', async () => {
    const id = await createSequence(h, service, {
      ...aJourney('kwgoal', { type: 'message' }, 10_000),
      goal: { until: { type: 'message', keyword: 'BUY' }, periodMs: 3_600_000 },
    });
    const openid = await started('kwgoal');
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'hello' });
    await expectEventually('kwgoal yes 1', () => receivedTexts(h, openid).includes('kwgoal yes 1'));
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'I buy' });
    await expectEventually('a conversion', async () => {
      const r = (await (await api('GET', `/v1/sequences/${id}/results`)).json()) as SequenceResults;
      return r.conversions?.converted === 1;
    });
    const results = (await (await api('GET', `/v1/sequences/${id}/results`)).json()) as SequenceResults;
    expect(results.paths.map((p) => [p.path, p.converted])).toEqual([
      ['main', 0],
      ['yes', 1],
      ['no', 0],
    ]);
  });

  it('refuses a goal that is also an exit, naming the field', async () => {
    const res = await api('POST', '/v1/sequences', {
      ...aSequence(aJourney('dup', { type: 'message' }, 1000)),
      exits: [{ type: 'event', name: 'purchased' }],
      goal: { until: { type: 'event', name: 'purchased' } },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('goal.until');
  });
});

/** `wechat_drip_journey_waits_resolved_total{outcome, by}` of the service so far. */
async function resolvedBy(outcome: 'yes' | 'no', by: 'push' | 'event' | 'pass'): Promise<number> {
  const { values } = await service.metrics.journeyWaits.get();
  return values.find((v) => v.labels.outcome === outcome && v.labels.by === by)?.value ?? 0;
}

describe('journeys: waiting for a variable of the enrollment', () => {
  it('a posted event’s vars meet the wait at once; the yes path renders the value', async () => {
    const id = await createSequence(h, service, {
      ...aJourney('varev', { type: 'var', name: 'phone' }, 20_000),
      paths: {
        yes: {
          steps: [{ offsetMs: 0, message: { msgtype: 'text', text: { content: 'varev yes {{phone|-}}' } } }],
        },
        no: { steps: textSteps('varev no', [0]) },
      },
    });
    const openid = await started('varev');
    // An event that gives no value for it (or an empty one) meets nothing.
    const empty = await api('POST', `/v1/followers/${APP_ID}/${openid}/events`, {
      name: 'profile',
      vars: { phone: '' },
    });
    expect(((await empty.json()) as FollowerEventView).continued).toEqual([]);
    const res = await api('POST', `/v1/followers/${APP_ID}/${openid}/events`, {
      name: 'profile',
      vars: { phone: '13800000000' },
    });
    expect(((await res.json()) as FollowerEventView).continued).toEqual([
      { sequenceId: id, enrollmentId: expect.any(String), path: 'yes', steps: 1 },
    ]);
    await expectEventually('varev yes', () => receivedTexts(h, openid).includes('varev yes 13800000000'));
    expect(await waitsOf(openid)).toEqual([{ path: 'main', outcome: 'yes' }]);
    expect(await resolvedBy('yes', 'event')).toBeGreaterThanOrEqual(1);
  });

  it('a value given at enrollment meets the wait as it starts (the pass); without one, the timeout', async () => {
    const id = await createSequence(h, service, {
      name: 'journey varapi',
      trigger: { type: 'api' },
      steps: textSteps('varapi welcome', [0]),
      wait: { until: { type: 'var', name: 'coupon' }, timeoutMs: 2500, yes: 'yes', no: 'no' },
      paths: { yes: { steps: textSteps('varapi yes', [0]) }, no: { steps: textSteps('varapi no', [0]) } },
    });
    const given = anOpenid('varapi');
    const without = anOpenid('varapi');
    // An API enrollment opens no window: each follower writes first, so that its steps can go out.
    for (const openid of [given, without]) {
      await h.simulator.push('message', openid, { appId: APP_ID, content: 'hello' });
      await expectEventually(`${openid}'s window`, async () => {
        const { rows } = await h.db.pool.query(
          `SELECT 1 FROM followers WHERE app_id = $1 AND openid = $2 AND window_expires_at > now()`,
          [APP_ID, openid],
        );
        return rows.length === 1;
      });
    }
    for (const [openid, vars] of [
      [given, { coupon: 'C-1' }],
      [without, {}],
    ] as const)
      expect((await api('POST', `/v1/sequences/${id}/enrollments`, { openid, vars })).status).toBe(201);
    await expectEventually('varapi yes', () => receivedTexts(h, given).includes('varapi yes 1'), 5000);
    await expectEventually('varapi no', () => receivedTexts(h, without).includes('varapi no 1'), 8000);
    expect(await waitsOf(given)).toEqual([{ path: 'main', outcome: 'yes' }]);
    expect(await waitsOf(without)).toEqual([{ path: 'main', outcome: 'no' }]);
    // The workers' pass resolved both (…_journey_waits_resolved_total{by="pass"}).
    expect(await resolvedBy('yes', 'pass')).toBeGreaterThanOrEqual(1);
    expect(await resolvedBy('no', 'pass')).toBeGreaterThanOrEqual(1);
  });

  it('refuses a variable wait with a bad name, naming the field', async () => {
    const res = await api('POST', '/v1/sequences', {
      ...aJourney('varbad', { type: 'var', name: '1phone' } as never, 1000),
      appId: APP_ID,
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('wait.until.name');
  });
});

describe('journeys: a timeouts pass that fails midway', () => {
  it('takes nothing: the wait stays open, and a later pass takes its no path once', async () => {
    await createSequence(h, service, {
      name: 'journey passfault',
      trigger: { type: 'scan', scene: 'passfault' },
      steps: textSteps('passfault welcome', [0]),
      wait: { until: { type: 'message' }, timeoutMs: 1000, yes: 'yes', no: 'faulty' },
      paths: {
        yes: { steps: textSteps('passfault yes', [0]) },
        faulty: {
          steps: textSteps('passfault no', [0]),
          wait: { until: { type: 'click', key: 'X' }, timeoutMs: 60_000, yes: 'yes2', no: null },
        },
        yes2: { steps: textSteps('passfault yes2', [0]) },
      },
    });
    // The no path's own wait cannot be written: each pass fails after resolving the wait and scheduling
    // the path's step, in the same transaction.
    await h.db.pool.query(`
      CREATE OR REPLACE FUNCTION refuse_faulty_wait() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.path = 'faulty' THEN RAISE EXCEPTION 'injected: the pass fails midway'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_faulty_wait BEFORE INSERT ON journey_waits
        FOR EACH ROW EXECUTE FUNCTION refuse_faulty_wait();`);
    try {
      const openid = await started('passfault');
      // Past the deadline, several passes have failed: nothing moved.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await waitsOf(openid)).toEqual([{ path: 'main', outcome: null }]);
      expect(receivedTexts(h, openid)).toEqual(['passfault welcome 1']);
      await h.db.pool.query(`DROP TRIGGER refuse_faulty_wait ON journey_waits`);
      await expectEventually(
        'passfault no 1',
        () => receivedTexts(h, openid).includes('passfault no 1'),
        5000,
      );
      await expectNothingMore('a second no path', () => receivedTexts(h, openid).length > 2, 2000);
      expect(await waitsOf(openid)).toEqual([
        { path: 'main', outcome: 'no' },
        { path: 'faulty', outcome: null },
      ]);
    } finally {
      await h.db.pool.query(`DROP TRIGGER IF EXISTS refuse_faulty_wait ON journey_waits`);
      await h.db.pool.query(`DROP FUNCTION IF EXISTS refuse_faulty_wait()`);
    }
  });
});
