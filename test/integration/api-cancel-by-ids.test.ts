import { randomUUID } from 'node:crypto';
import type { Service } from '../../src/main/start-service';
import type { NewMessage } from '../../src/store/message-store';
import type { MessageStatus } from '../../src/store/message-status';
import { APP_ID, createHarness, type Harness, writtenRows } from '../helpers/harness';
import { aNewMessage } from '../helpers/builders';
import { seedMessages } from '../helpers/seed';

const OTHER_APP = 'wxtest0000000002';
let h: Harness;
let api: Service;

beforeAll(async () => {
  h = await createHarness({
    ROLE: 'api',
    WECHAT_ACCOUNTS: JSON.stringify([
      { appId: APP_ID, secret: 's1', windowPolicy: 'none' },
      { appId: OTHER_APP, secret: 's2', windowPolicy: 'none' },
    ]),
  });
  api = await h.start();
});
afterAll(() => h.close());

const cancel = (body: unknown) =>
  h.api(api, '/v1/cancellations', { method: 'POST', body: JSON.stringify(body) });

const seed = (status: MessageStatus, fields: Partial<NewMessage> = {}): Promise<string[]> =>
  seedMessages(h.db.pool, [aNewMessage({ dueAt: new Date(Date.now() + 3_600_000), ...fields })], { status });

const statusOf = async (id: string): Promise<string> =>
  (await h.db.pool.query<{ status: string }>('SELECT status FROM scheduled_messages WHERE id = $1', [id]))
    .rows[0].status;

describe('POST /v1/cancellations {ids}', () => {
  it('cancels the open messages of any account, answers each id in order with a true count, and writes a ledger row per cancelled message', async () => {
    const [queued] = await seed('queued');
    const [otherQueued] = await seed('queued', { appId: OTHER_APP });
    const [sent] = await seed('sent');
    const [sending] = await seed('sending', { appId: OTHER_APP });
    const [cancelled] = await seed('cancelled');
    const missing = randomUUID();
    const ids = [sent, queued, missing, otherQueued.toUpperCase(), sending, cancelled];

    const res = await cancel({ ids, reason: 'campaign stopped' });

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      cancelled: 2,
      alreadyCancelled: 1,
      notCancellable: 2,
      notFound: 1,
      results: [
        { id: sent, outcome: 'not_cancellable', status: 'sent' },
        { id: queued, outcome: 'cancelled', status: 'cancelled' },
        { id: missing, outcome: 'not_found' },
        { id: otherQueued, outcome: 'cancelled', status: 'cancelled' },
        { id: sending, outcome: 'not_cancellable', status: 'sending' },
        { id: cancelled, outcome: 'already_cancelled', status: 'cancelled' },
      ],
    });
    expect([await statusOf(queued), await statusOf(otherQueued), await statusOf(sent)]).toEqual([
      'cancelled',
      'cancelled',
      'sent',
    ]);
    const ledger = await h.db.pool.query(
      `SELECT app_id, scope, target, reason, actor FROM cancellations WHERE target = ANY($1) ORDER BY app_id`,
      [ids.map((id) => id.toLowerCase())],
    );
    expect(ledger.rows).toEqual([
      { app_id: APP_ID, scope: 'message', target: queued, reason: 'campaign stopped', actor: 'api' },
      { app_id: OTHER_APP, scope: 'message', target: otherQueued, reason: 'campaign stopped', actor: 'api' },
    ]);
  });

  it('answers a repeated request as already cancelled, writing nothing more', async () => {
    const ids = [...(await seed('queued')), ...(await seed('queued'))];
    expect(((await (await cancel({ ids, reason: 'r' })).json()) as { cancelled: number }).cancelled).toBe(2);
    const before = await writtenRows(h.db);

    const again = (await (await cancel({ ids, reason: 'r' })).json()) as Record<string, number>;

    expect(again).toMatchObject({ cancelled: 0, alreadyCancelled: 2 });
    expect(await writtenRows(h.db)).toEqual(before);
  });

  it('takes 10,000 ids in one request (a body of about 400 KB)', async () => {
    const open = await seedMessages(
      h.db.pool,
      Array.from({ length: 100 }, () => aNewMessage({ dueAt: new Date(Date.now() + 3_600_000) })),
      { status: 'queued' },
    );
    const ids = [...open, ...Array.from({ length: 9_900 }, () => randomUUID())];

    const res = await cancel({ ids, reason: 'bulk' });

    expect(res.status).toBe(200);
    const body = (await res.json()) as { cancelled: number; notFound: number; results: unknown[] };
    expect(body).toMatchObject({ cancelled: 100, notFound: 9_900 });
    expect(body.results).toHaveLength(10_000);
  });

  describe('bad input: 400 naming the field, and nothing written (not even the good ids cancelled)', () => {
    const cases: [string, (open: string) => unknown, string][] = [
      ['an empty list', () => ({ ids: [], reason: 'r' }), 'ids'],
      [
        'more than 10,000 ids',
        (open) => ({ ids: [open, ...Array.from({ length: 10_000 }, randomUUID)], reason: 'r' }),
        'ids',
      ],
      ['an id that is not a UUID', (open) => ({ ids: [open, 'not-a-uuid'], reason: 'r' }), 'ids.1'],
      [
        'a repeated id (in any case)',
        (open) => ({ ids: [open, randomUUID(), open.toUpperCase()], reason: 'r' }),
        'ids.2',
      ],
      [
        'ids with a cancelKey',
        (open) => ({ ids: [open], appId: APP_ID, cancelKey: 'k', reason: 'r' }),
        'cancelKey',
      ],
      ['ids with an openid', (open) => ({ ids: [open], openid: 'o-1', reason: 'r' }), 'openid'],
      ['no reason', (open) => ({ ids: [open] }), 'reason'],
      ['an empty reason', (open) => ({ ids: [open], reason: '' }), 'reason'],
      ['ids that are not a list', (open) => ({ ids: open, reason: 'r' }), 'ids'],
      ['a NUL character in the reason', (open) => ({ ids: [open], reason: 'a\u0000b' }), 'reason'],
      ['a NUL character in an id', (open) => ({ ids: [open, `${open}\u0000`], reason: 'r' }), 'ids.1'],
    ];

    it.each(cases)('%s', async (_what, body, path) => {
      const [open] = await seed('queued');
      const before = await writtenRows(h.db);

      const res = await cancel(body(open));

      expect(res.status).toBe(400);
      const error = ((await res.json()) as { error: { details: { path: string }[] } }).error;
      expect(error.details.map((d) => d.path)).toContain(path);
      expect(await writtenRows(h.db)).toEqual(before);
      expect(await statusOf(open)).toBe('queued');
    });
  });
});

describe('DELETE /v1/messages/:id, many at once (joined into shared transactions)', () => {
  it('answers each as it would alone, and records each reason on its own ledger row', async () => {
    const open = await seedMessages(
      h.db.pool,
      Array.from({ length: 40 }, (_, i) =>
        aNewMessage({ appId: i % 2 ? OTHER_APP : APP_ID, dueAt: new Date(Date.now() + 3_600_000) }),
      ),
      { status: 'queued' },
    );
    const [sent] = await seed('sent');
    const missing = randomUUID();
    const del = (id: string, reason: string) =>
      h.api(api, `/v1/messages/${id}?reason=${reason}`, { method: 'DELETE' });

    const answers = await Promise.all([
      ...open.map((id, i) => del(id, `r${i % 3}`)),
      del(open[0], 'again'),
      del(sent, 'late'),
      del(missing, 'nothing'),
    ]);

    const statuses = answers.map((a) => a.status);
    expect(statuses).toEqual([...open.map(() => 200), 200, 409, 404]);
    const bodies = (await Promise.all(answers.slice(0, 41).map((a) => a.json()))) as { status: string }[];
    expect(bodies.every((b) => b.status === 'cancelled')).toBe(true);
    const ledger = await h.db.pool.query<{ target: string; reason: string }>(
      `SELECT target, reason FROM cancellations WHERE target = ANY($1)`,
      [[...open, sent, missing]],
    );
    // One row per message; open[0] was asked twice, and whichever came first gave its reason.
    const reasons = new Map(ledger.rows.map((r) => [r.target, r.reason]));
    expect(ledger.rows).toHaveLength(open.length);
    expect(['r0', 'again']).toContain(reasons.get(open[0]));
    expect(open.slice(1).map((id) => reasons.get(id))).toEqual(
      open.slice(1).map((_, i) => `r${(i + 1) % 3}`),
    );
  });
});
