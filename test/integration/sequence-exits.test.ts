import type { ExitCondition } from '../../src/contract';
import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { anOpenid } from '../helpers/builders';
import {
  createSequence,
  exitsCountedBy,
  expectEventually,
  receivedTexts,
  SHORT_WINDOWS,
  textSteps,
} from '../helpers/drip';

const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'exittoken', windowPolicy: SHORT_WINDOWS };

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) }, { enforceContactWindow: true });
  service = await h.start();
});
afterAll(() => h.close());

const send = (method: string, path: string, body?: unknown) =>
  h.api(service, path, { method, body: body === undefined ? undefined : JSON.stringify(body) });

/** The ledger rows ending `openid`'s enrollments. */
async function exitsOf(openid: string): Promise<{ sequence_id: string; reason: string; actor: string }[]> {
  const { rows } = await h.db.pool.query(
    `SELECT e.sequence_id, c.reason, c.actor FROM cancellations c
     JOIN enrollments e ON c.scope = 'enrollment' AND c.target = e.id::text
     WHERE e.openid = $1 ORDER BY c.seq`,
    [openid],
  );
  return rows;
}
/** The outcome of `openid`'s text message push once processed, null before. */
async function messageOutcome(openid: string): Promise<string | null> {
  const { rows } = await h.db.pool.query<{ outcome: string | null }>(
    `SELECT outcome FROM webhook_pushes WHERE openid = $1 AND msg_type = 'text' AND processed_at IS NOT NULL`,
    [openid],
  );
  return rows[0]?.outcome ?? null;
}
const results = async (id: string) =>
  (await (await send('GET', `/v1/sequences/${id}/results`)).json()) as {
    exited: Record<string, number>;
    steps: { cancelled: number }[];
  };

describe('exit conditions', () => {
  it('a follower who sends "退订" after step 1 gets nothing more: one ledger row ends the enrollment', async () => {
    const id = await createSequence(h, service, {
      name: 'stop drip',
      trigger: { type: 'scan', scene: 'stop-drip' },
      steps: textSteps('stop', [0, 2000, 3000]),
      exits: [{ type: 'message', keyword: '退订' }],
    });
    const openid = anOpenid('o-stop');
    await h.simulator.push('scan', openid, { appId: APP_ID, scene: 'stop-drip' });
    await expectEventually('step 1', () => receivedTexts(h, openid).includes('stop 1'));
    const exitsCounted = await exitsCountedBy(service);
    await h.simulator.push('message', openid, { appId: APP_ID, content: '请帮我退订' });
    await expectEventually('the message processed', async () => (await messageOutcome(openid)) !== null);

    await expectNothingMore('step after the exit', () => receivedTexts(h, openid).length > 1, 3500);
    expect(await messageOutcome(openid)).toBe('message:0 exited:1');
    expect(await exitsOf(openid)).toEqual([
      { sequence_id: id, reason: 'exit:message:退订', actor: 'webhook' },
    ]);
    const counts = await results(id);
    expect(counts.exited).toEqual({ 'exit:message:退订': 1 });
    expect(await exitsCountedBy(service)).toBe(exitsCounted + 1);
    expect(counts.steps.map((s) => s.cancelled)).toEqual([0, 1, 1]);
  });

  it('a message without the keyword ends nothing', async () => {
    await createSequence(h, service, {
      name: 'keep going',
      trigger: { type: 'scan', scene: 'keep-going' },
      steps: textSteps('keep', [0, 1500]),
      exits: [{ type: 'message', keyword: 'STOP' }],
    });
    const openid = anOpenid('o-keep');
    await h.simulator.push('scan', openid, { appId: APP_ID, scene: 'keep-going' });
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'go on, do not st0p' });
    await expectEventually('the message processed', async () => (await messageOutcome(openid)) !== null);
    await expectEventually('both steps', () => receivedTexts(h, openid).length === 2);
    expect(await messageOutcome(openid)).toBe('message:0');
    expect(await exitsOf(openid)).toEqual([]);
  });

  it('the message that starts one sequence ends another, and not the enrollment it starts', async () => {
    const ended = await createSequence(h, service, {
      name: 'ended by any message',
      trigger: { type: 'scan', scene: 'any-message' },
      steps: textSteps('b', [0, 2500]),
      exits: [{ type: 'message' }],
    });
    await createSequence(h, service, {
      name: 'started by the keyword',
      trigger: { type: 'keyword', keyword: '报名课程' },
      steps: textSteps('a', [0, 1000]),
      exits: [{ type: 'message' }],
    });
    const openid = anOpenid('o-both');
    await h.simulator.push('scan', openid, { appId: APP_ID, scene: 'any-message' });
    await expectEventually('b 1', () => receivedTexts(h, openid).includes('b 1'));
    await h.simulator.push('message', openid, { appId: APP_ID, content: '我要报名课程' });
    await expectEventually('a 1 and a 2', () => receivedTexts(h, openid).includes('a 2'));
    await expectNothingMore('b 2 after the exit', () => receivedTexts(h, openid).includes('b 2'), 2500);
    expect(await messageOutcome(openid)).toBe('message:2 exited:1');
    expect(await exitsOf(openid)).toEqual([{ sequence_id: ended, reason: 'exit:message', actor: 'webhook' }]);
  });

  it('a click on the exit key ends the enrollment; another key does not', async () => {
    const id = await createSequence(h, service, {
      name: 'menu exit',
      trigger: { type: 'scan', scene: 'menu-exit' },
      steps: textSteps('menu', [0, 2500]),
      exits: [{ type: 'click', key: 'UNSUB' }],
    });
    const openid = anOpenid('o-click');
    await h.simulator.push('scan', openid, { appId: APP_ID, scene: 'menu-exit' });
    await expectEventually('menu 1', () => receivedTexts(h, openid).includes('menu 1'));
    await h.simulator.push('click', openid, { appId: APP_ID, key: 'OTHER' });
    await h.simulator.push('click', openid, { appId: APP_ID, key: 'UNSUB' });
    await expectEventually('the exit', async () => (await exitsOf(openid)).length > 0);
    await expectNothingMore('menu 2 after the exit', () => receivedTexts(h, openid).includes('menu 2'), 2500);
    expect(await exitsOf(openid)).toEqual([
      { sequence_id: id, reason: 'exit:click:UNSUB', actor: 'webhook' },
    ]);
  });

  it('an exit added in a new version ends the enrollments already running (ASCII case ignored)', async () => {
    const id = await createSequence(h, service, {
      name: 'stop word added later',
      trigger: { type: 'scan', scene: 'added-later' },
      steps: textSteps('later', [0, 2500]),
    });
    const openid = anOpenid('o-later');
    await h.simulator.push('scan', openid, { appId: APP_ID, scene: 'added-later' });
    await expectEventually('later 1', () => receivedTexts(h, openid).includes('later 1'));
    const edited = await send('PUT', `/v1/sequences/${id}`, {
      appId: APP_ID,
      name: 'stop word added later',
      trigger: { type: 'scan', scene: 'added-later' },
      steps: textSteps('later', [0, 2500]),
      exits: [{ type: 'message', keyword: 'stop' }],
    });
    expect(await edited.json()).toMatchObject({ version: 2, exits: [{ type: 'message', keyword: 'stop' }] });
    await h.simulator.push('message', openid, { appId: APP_ID, content: 'STOP please' });
    await expectEventually('the exit', async () => (await exitsOf(openid)).length > 0);
    await expectNothingMore(
      'later 2 after the exit',
      () => receivedTexts(h, openid).includes('later 2'),
      2500,
    );
  });

  it('an unfollow still ends everything, and counts in the results as "unsubscribed"', async () => {
    const id = await createSequence(h, service, {
      name: 'left',
      trigger: { type: 'scan', scene: 'left' },
      steps: textSteps('left', [0, 3000]),
      exits: [{ type: 'event', name: 'purchased' }],
    });
    const openid = anOpenid('o-left');
    await h.simulator.push('scan', openid, { appId: APP_ID, scene: 'left' });
    await expectEventually('left 1', () => receivedTexts(h, openid).includes('left 1'));
    await h.simulator.push('unfollow', openid, { appId: APP_ID });
    await expectEventually('the unfollow counted', async () => (await results(id)).exited.unsubscribed === 1);
    expect((await results(id)).exited).toEqual({ unsubscribed: 1 });
  });
});

describe('exit conditions on /v1/sequences', () => {
  it('are stored with the sequence and answered', async () => {
    const exits: ExitCondition[] = [
      { type: 'message' },
      { type: 'click', key: 'UNSUB' },
      { type: 'event', name: 'purchased' },
    ];
    const id = await createSequence(h, service, {
      name: 'stored',
      trigger: { type: 'click', key: 'S' },
      steps: textSteps('s', [0]),
      exits,
    });
    expect(await (await send('GET', `/v1/sequences/${id}`)).json()).toMatchObject({ exits });
  });

  it.each([
    ['an unknown type', [{ type: 'sms' }], 'exits.0.type'],
    ['an empty keyword', [{ type: 'message', keyword: '' }], 'exits.0.keyword'],
    ['an empty key', [{ type: 'click', key: '' }], 'exits.0.key'],
    ['a bad event name', [{ type: 'event', name: 'a b' }], 'exits.0.name'],
    [
      'a duplicate',
      [
        { type: 'event', name: 'x' },
        { type: 'event', name: 'x' },
      ],
      'exits.1',
    ],
  ])('refuses %s with a 400 naming the field, and writes nothing', async (_what, exits, path) => {
    const before = await h.db.pool.query('SELECT count(*)::int AS n FROM sequences');
    const res = await send('POST', '/v1/sequences', {
      appId: APP_ID,
      name: 'refused',
      trigger: { type: 'click', key: 'R' },
      steps: textSteps('r', [0]),
      exits,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { path: string }[] } };
    expect(body.error.details.map((d) => d.path)).toEqual([path]);
    expect((await h.db.pool.query('SELECT count(*)::int AS n FROM sequences')).rows).toEqual(before.rows);
  });
});
