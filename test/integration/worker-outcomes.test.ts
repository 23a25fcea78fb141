import { randomUUID } from 'node:crypto';
import type { Service } from '../../src/main/start-service';
import { queueDepth } from '../helpers/broker';
import { APP_ID, createHarness, type Harness, waitFor } from '../helpers/harness';
import { withTransaction } from '../../src/db/pool';
import { recordNoticeAnswers } from '../../src/store/notice-acceptances';
import { aMessageRequest, aNoticeMessage, aTextMessage } from '../helpers/builders';
import { rowOf as rowOfIn, type RowState, settledRow } from '../helpers/message-rows';

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness({ RETRY_BASE_DELAY_MS: '100', RETRY_MAX_DELAY_MS: '400', RETRY_MAX_ATTEMPTS: '3' });
  service = await h.start();
});
afterAll(() => h.close());
afterEach(() => {
  h.simulator.clearFaults();
  h.simulator.resetMessages();
});

async function scheduleNow(tag: string): Promise<string> {
  const res = await h.api(service, '/v1/messages', {
    method: 'POST',
    body: JSON.stringify(
      aMessageRequest({
        openid: 'o-outcomes',
        message: aTextMessage(tag),
      }),
    ),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const rowOf = (id: string): Promise<RowState> => rowOfIn(h.db.pool, id);
const settled = (id: string): Promise<RowState> => settledRow(h.db.pool, id);

const received = (tag: string) =>
  h.simulator.messages().filter((m) => (m.body as { text: { content: string } }).text.content === tag).length;

describe('what the worker does with WeChat answers', () => {
  it('retries -1 with backoff through the broker and delivers once', async () => {
    h.simulator.setFaults({ forceErrcode: -1, count: 2 });
    const tag = randomUUID();
    const id = await scheduleNow(tag);
    await waitFor(() => received(tag) === 1, 10_000);
    const { row, attempts } = await settled(id);
    expect(row.status).toBe('sent');
    expect(attempts).toEqual([
      { errcode: -1, outcome: 'retry' },
      { errcode: -1, outcome: 'retry' },
      { errcode: 0, outcome: 'sent' },
    ]);
    expect(received(tag)).toBe(1);
  });

  it('fails after the last attempt and parks the wake-up in the dead-letter queue', async () => {
    h.simulator.setFaults({ forceErrcode: -1 });
    const before = await queueDepth(h.env.RABBITMQ_URL, `${h.prefix}.dead`);
    const id = await scheduleNow(randomUUID());
    const { row, attempts } = await settled(id);
    expect(row).toMatchObject({ status: 'failed', attempts: 3 });
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'failed']);
    expect(
      await waitFor(
        async () => (await queueDepth(h.env.RABBITMQ_URL, `${h.prefix}.dead`)) === before + 1,
        5000,
      ),
    ).toBe(true);
  });

  it('fails a permanent error at once, with its errcode as the reason', async () => {
    h.simulator.setFaults({ forceErrcode: 40003 });
    const id = await scheduleNow(randomUUID());
    const { row, attempts } = await settled(id);
    expect(row).toMatchObject({ status: 'failed', status_reason: 'errcode:40003', attempts: 1 });
    expect(attempts).toEqual([{ errcode: 40003, outcome: 'failed' }]);
  });

  it('skips a message WeChat answers 45015 for (window closed) instead of retrying', async () => {
    h.simulator.setFaults({ forceErrcode: 45015 });
    const id = await scheduleNow(randomUUID());
    const { row } = await settled(id);
    expect(row).toMatchObject({ status: 'skipped', status_reason: 'window_closed' });
  });

  it('skips a notice WeChat refuses with 43101 (the follower cancelled it there) as no_subscription, sending once', async () => {
    // The service holds an acceptance the simulator does not: the follower cancelled it in WeChat.
    await withTransaction(h.db.pool, (c) =>
      recordNoticeAnswers(c, [
        { appId: APP_ID, openid: 'o-notice', templateId: 'NOTICE-TPL-0001', accept: true },
      ]),
    );
    const res = await h.api(service, '/v1/messages', {
      method: 'POST',
      body: JSON.stringify(
        aMessageRequest({ openid: 'o-notice', channel: 'notice', message: aNoticeMessage() }),
      ),
    });
    expect(res.status).toBe(201);
    const { row, attempts } = await settled(((await res.json()) as { id: string }).id);
    expect(row).toMatchObject({ status: 'skipped', status_reason: 'no_subscription', attempts: 1 });
    expect(attempts).toEqual([{ errcode: 43101, outcome: 'skipped' }]);
    expect(h.simulator.messages({ openid: 'o-notice' })).toEqual([]);
  });

  it('refreshes an invalidated token and delivers once', async () => {
    const tag = randomUUID();
    await scheduleNow(`${tag}-warm`);
    await waitFor(() => received(`${tag}-warm`) === 1, 5000);
    expect(h.simulator.invalidateTokens(APP_ID)).toBeGreaterThan(0);
    const id = await scheduleNow(tag);
    const { row } = await settled(id);
    expect(row.status).toBe('sent');
    expect(received(tag)).toBe(1);
  });

  it('pauses the account on 45009 until the quota resets, without spending the attempt', async () => {
    h.simulator.setFaults({ forceErrcode: 45009, count: 1 });
    const id = await scheduleNow(randomUUID());
    await waitFor(async () => (await rowOf(id)).attempts.length === 1, 10_000);
    const { row, attempts } = await rowOf(id);
    expect(attempts).toEqual([{ errcode: 45009, outcome: 'paused' }]);
    expect(row).toMatchObject({ status: 'queued', attempts: 0 });
    expect(row.due_at.getTime()).toBeGreaterThan(Date.now() + 60_000);
    // The pause is written right after the outcome.
    const pausedUntil = async () =>
      (
        await h.db.pool.query<{ paused_until: Date }>(
          'SELECT paused_until FROM account_states WHERE app_id = $1',
          [APP_ID],
        )
      ).rows[0]?.paused_until;
    expect(await waitFor(async () => (await pausedUntil()) !== undefined, 5000)).toBe(true);
    expect((await pausedUntil()).getTime()).toBe(row.due_at.getTime());
    // Later messages of the paused account wait too, without calling WeChat.
    const tag = randomUUID();
    const next = await scheduleNow(tag);
    const parked = await waitFor(
      async () => (await rowOf(next)).row.due_at.getTime() === row.due_at.getTime(),
      5000,
    );
    expect(parked).toBe(true);
    expect(received(tag)).toBe(0);
    await h.db.pool.query('DELETE FROM account_states');
    await h.db.pool.query(`UPDATE scheduled_messages SET status = 'cancelled' WHERE id = ANY($1)`, [
      [id, next],
    ]);
  });
});

describe('an account whose credentials WeChat refuses', () => {
  it('is paused for a while and its messages wait, without spending attempts or failing', async () => {
    const wrong = await createHarness(
      {
        WECHAT_ACCOUNTS: JSON.stringify([{ appId: APP_ID, secret: 'not-the-secret', windowPolicy: 'none' }]),
      },
      { simulatorAccounts: [{ appId: APP_ID, secret: 'test-secret' }] },
    );
    try {
      const svc = await wrong.start();
      const res = await wrong.api(svc, '/v1/messages', {
        method: 'POST',
        body: JSON.stringify(
          aMessageRequest({
            openid: 'o1',
            message: aTextMessage('x'),
          }),
        ),
      });
      const { id } = (await res.json()) as { id: string };
      const parked = await waitFor(async () => {
        const { rows } = await wrong.db.pool.query(
          'SELECT status, attempts, due_at FROM scheduled_messages WHERE id = $1',
          [id],
        );
        return rows[0].status === 'queued' && rows[0].due_at.getTime() > Date.now() + 60_000;
      }, 10_000);
      expect(parked).toBe(true);
      const { rows } = await wrong.db.pool.query(
        'SELECT attempts, status_reason FROM scheduled_messages WHERE id = $1',
        [id],
      );
      expect(rows[0]).toEqual({ attempts: 0, status_reason: 'token_error' });
      const state = await wrong.db.pool.query('SELECT paused_until FROM account_states WHERE app_id = $1', [
        APP_ID,
      ]);
      expect(state.rows[0].paused_until.getTime()).toBeGreaterThan(Date.now() + 60_000);
      expect(wrong.simulator.messages()).toHaveLength(0);
    } finally {
      await wrong.close();
    }
  });
});
