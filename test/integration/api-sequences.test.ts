import { randomUUID } from 'node:crypto';
import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness, writtenRows } from '../helpers/harness';
import { aNewMessage, aTextMessage } from '../helpers/builders';
import { seedMessages } from '../helpers/seed';

let h: Harness;
let api: Service;

beforeAll(async () => {
  h = await createHarness({
    ROLE: 'api',
    WECHAT_ACCOUNTS: JSON.stringify([{ appId: APP_ID, secret: 'test-secret', windowPolicy: 'official' }]),
  });
  api = await h.start();
});
afterAll(() => h.close());

const template = { template_id: 'tpl-1', data: { first: { value: '春季课程提醒' } } };
const spring = (extraSteps: object[] = []) => ({
  appId: APP_ID,
  name: 'spring welcome',
  trigger: { type: 'subscribe', scene: 'spring' },
  steps: [
    { offsetMs: 0, message: aTextMessage('欢迎！') },
    { offsetMs: 10_000, message: aTextMessage('第二条') },
    { offsetMs: 30_000, message: aTextMessage('第三条') },
    ...extraSteps,
  ],
});
const send = (method: string, path: string, body?: unknown) =>
  h.api(api, path, { method, body: body === undefined ? undefined : JSON.stringify(body) });

describe('/v1/sequences', () => {
  it('creates a sequence whose steps fit the follow window, as version 1', async () => {
    const res = await send('POST', '/v1/sequences', { ...spring(), status: 'active' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name: 'spring welcome', status: 'active', version: 1 });
  });

  it("lists one account's sequences with ?appId=, and refuses a repeated appId, naming query.appId", async () => {
    expect((await send('POST', '/v1/sequences', spring())).status).toBe(201);
    const mine = (await (await send('GET', `/v1/sequences?appId=${APP_ID}`)).json()) as {
      sequences: { appId: string }[];
    };
    expect(mine.sequences.length).toBeGreaterThan(0);
    expect(mine.sequences.every((s) => s.appId === APP_ID)).toBe(true);
    expect(await (await send('GET', '/v1/sequences?appId=wxnobody')).json()).toEqual({
      sequences: [],
      next: null,
    });

    const repeated = await send('GET', `/v1/sequences?appId=${APP_ID}&appId=wxnobody`);
    expect(repeated.status).toBe(400);
    expect(await repeated.json()).toEqual({
      error: expect.objectContaining({
        details: [
          { path: 'query.appId', message: 'must be a string', rule: { kind: 'type', expected: 'string' } },
        ],
      }),
    });
  });

  it('refuses a 4th step at +2 h after a follow, naming the step and the rule, and writes nothing', async () => {
    const before = await h.db.pool.query('SELECT count(*)::int AS n FROM sequences');
    const res = await send(
      'POST',
      '/v1/sequences',
      spring([{ offsetMs: 2 * 3600_000, message: aTextMessage('太晚了') }]),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { path: string; message: string }[] } };
    expect(body.error.details).toEqual([
      {
        path: 'steps.3',
        message: expect.stringMatching(
          /step 4 at \+2 h falls outside the contact window: a follow allows 3 messages within 1 min/,
        ),
        rule: { kind: 'window_late', interaction: 'subscribe', count: 3, windowMs: 60_000, position: 4 },
      },
    ]);
    expect((await h.db.pool.query('SELECT count(*)::int AS n FROM sequences')).rows).toEqual(before.rows);
  });

  it('accepts the same 4th step when it has a template fallback', async () => {
    const res = await send(
      'POST',
      '/v1/sequences',
      spring([{ offsetMs: 2 * 3600_000, message: aTextMessage('x'), fallback: template }]),
    );
    expect(res.status).toBe(201);
  });

  it('accepts the same 4th step with a subscription-notice fallback, and shows it as given', async () => {
    const notice = {
      channel: 'notice',
      template_id: 'NOTICE_1',
      data: { thing1: { value: '课程即将开始' } },
    };
    const res = await send(
      'POST',
      '/v1/sequences',
      spring([{ offsetMs: 2 * 3600_000, message: aTextMessage('x'), fallback: notice }]),
    );
    expect(res.status).toBe(201);
    const created = (await res.json()) as { steps: { fallback: unknown }[] };
    expect(created.steps.at(-1)!.fallback).toEqual(notice);
  });

  it('refuses a 4th message inside the window too: the window allows only 3', async () => {
    const res = await send(
      'POST',
      '/v1/sequences',
      spring([{ offsetMs: 40_000, message: aTextMessage('第四条') }]),
    );
    const body = (await res.json()) as { error: { details: { path: string; message: string }[] } };
    expect(body.error.details[0]).toMatchObject({
      path: 'steps.3',
      message: expect.stringMatching(/message 4/),
    });
  });

  it.each([
    ['no steps', { ...spring(), steps: [] }, 'steps'],
    [
      'steps out of order',
      {
        ...spring(),
        steps: [
          { offsetMs: 5000, message: aTextMessage('a') },
          { offsetMs: 0, message: aTextMessage('b') },
        ],
      },
      'steps.1.offsetMs',
    ],
    [
      'an unknown msgtype field',
      {
        ...spring(),
        steps: [{ offsetMs: 0, message: { msgtype: 'text', text: { content: 'a', colour: 'red' } } }],
      },
      'steps.0.message.text.colour',
    ],
    [
      'a negative offset',
      { ...spring(), steps: [{ offsetMs: -1, message: aTextMessage('a') }] },
      'steps.0.offsetMs',
    ],
    [
      'a notice fallback whose thing keyword is over 20 characters',
      {
        ...spring(),
        steps: [
          {
            offsetMs: 2 * 3600_000,
            message: aTextMessage('a'),
            fallback: { channel: 'notice', template_id: 'N', data: { thing1: { value: 'x'.repeat(21) } } },
          },
        ],
      },
      'steps.0.fallback.data',
    ],
    ['an unknown trigger', { ...spring(), trigger: { type: 'birthday' } }, 'trigger.type'],
    ['an unconfigured account', { ...spring(), appId: 'wxnobody' }, 'appId'],
  ])('refuses %s with a detail at its path', async (_name, body, path) => {
    const before = await writtenRows(h.db);
    const res = await send('POST', '/v1/sequences', body);
    expect(res.status).toBe(400);
    const details = ((await res.json()) as { error: { details: { path: string }[] } }).error.details;
    expect(details.map((d) => d.path)).toContain(path);
    expect(await writtenRows(h.db)).toEqual(before);
  });

  it('makes a new version on edit, and pausing cancels pending steps with one ledger row', async () => {
    const created = (await (
      await send('POST', '/v1/sequences', { ...spring(), status: 'active' })
    ).json()) as { id: string };
    const edited = await send('PUT', `/v1/sequences/${created.id}`, {
      ...spring(),
      name: 'spring welcome v2',
    });
    expect(await edited.json()).toMatchObject({ version: 2, name: 'spring welcome v2', status: 'active' });
    // Two pending steps of a running enrollment (as the webhook would write them).
    const enrollmentId = randomUUID();
    await seedMessages(
      h.db.pool,
      [0, 1].map((index) =>
        aNewMessage({
          openid: 'o-seq',
          dueAt: new Date(Date.now() + 3_600_000),
          step: { sequenceId: created.id, enrollmentId, index },
        }),
      ),
      { status: 'queued' },
    );
    const detail = (await (await send('GET', `/v1/sequences/${created.id}`)).json()) as {
      pendingSteps: number;
    };
    expect(detail.pendingSteps).toBe(2);
    const paused = (await (await send('POST', `/v1/sequences/${created.id}/pause`)).json()) as {
      status: string;
      cancelledSteps: number;
    };
    expect(paused).toMatchObject({ status: 'paused', cancelledSteps: 2 });
    const ledger = await h.db.pool.query(`SELECT scope, reason FROM cancellations WHERE target = $1`, [
      created.id,
    ]);
    expect(ledger.rows).toEqual([{ scope: 'sequence', reason: 'sequence paused' }]);
    const statuses = await h.db.pool.query(`SELECT status FROM scheduled_messages WHERE sequence_id = $1`, [
      created.id,
    ]);
    expect(statuses.rows.every((r) => r.status === 'queued')).toBe(true); // one ledger row, no per-message update
    expect((await send('POST', `/v1/sequences/${created.id}/pause`)).status).toBe(409);
    expect((await send('POST', `/v1/sequences/${created.id}/resume`)).status).toBe(200);
    const archived = (await (await send('POST', `/v1/sequences/${created.id}/archive`)).json()) as {
      cancelledSteps: number;
    };
    expect(archived.cancelledSteps).toBe(0);
    expect((await send('PUT', `/v1/sequences/${created.id}`, spring())).status).toBe(409);
  });
});

// A change and its audit entry are one transaction: when the entry cannot be written, the change is not made
// either (the other way round, a refused change writes no entry, is the acceptance test's).
const count = async (sql: string) => (await h.db.pool.query<{ n: number }>(sql)).rows[0].n;

describe('the audit log, written with each change', () => {
  it('a change whose entry cannot be written is not made: sequence created, account changed, sequence paused', async () => {
    const created = await send('POST', '/v1/sequences', {
      appId: APP_ID,
      name: 'kept',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: 0, message: aTextMessage('hi') }],
      status: 'active',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const sequences = await count('SELECT count(*)::int AS n FROM sequences');
    const entries = await count('SELECT count(*)::int AS n FROM audit_log');
    const rate = async () =>
      (await h.db.pool.query<{ r: number }>('SELECT send_rate_per_second AS r FROM accounts')).rows[0].r;
    const rateBefore = await rate();

    await h.db.pool.query('ALTER TABLE audit_log RENAME TO audit_log_away');
    try {
      const another = await send('POST', '/v1/sequences', {
        appId: APP_ID,
        name: 'not kept',
        trigger: { type: 'subscribe' },
        steps: [{ offsetMs: 0, message: aTextMessage('hi') }],
      });
      // A 500 says nothing of the inside: `internal` and the request id, which finds the detail in the log.
      expect(another.status).toBe(500);
      expect(await another.json()).toEqual({
        error: {
          code: 'internal',
          message: 'internal error',
          requestId: another.headers.get('x-request-id'),
        },
      });
      expect((await send('PATCH', `/v1/accounts/${APP_ID}`, { sendRatePerSecond: 3 })).status).toBe(500);
      expect((await send('POST', `/v1/sequences/${id}/pause`)).status).toBe(500);
    } finally {
      await h.db.pool.query('ALTER TABLE audit_log_away RENAME TO audit_log');
    }

    expect(await count('SELECT count(*)::int AS n FROM sequences')).toBe(sequences);
    expect(await rate()).toBe(rateBefore);
    expect(((await (await send('GET', `/v1/sequences/${id}`)).json()) as { status: string }).status).toBe(
      'active',
    );
    expect(await count('SELECT count(*)::int AS n FROM audit_log')).toBe(entries);
  });
});
