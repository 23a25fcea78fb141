import { withTransaction } from '../../../src/db/pool';
import { claimDue } from '../../../src/store/claim-due';
import { recordInteractions } from '../../../src/store/follower-store';
import type { NewMessage } from '../../../src/store/message-store';
import { recordNoticeAnswers, recordNoticeResult } from '../../../src/store/notice-acceptances';
import { aNewMessage, aNoticeMessage, anAppId, anOpenid, aTextMessage } from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';
import { seedMessages } from '../../helpers/seed';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 4 });
});
afterAll(() => db.drop());

const TPL = 'NOTICE-TPL-0001';

/** A follower of a fresh account who answered the notice popups `answers` (true: accepted), in order. */
async function aFollowerWhoAnswered(...answers: boolean[]) {
  const appId = anAppId();
  const openid = anOpenid();
  for (const accept of answers)
    await withTransaction(db.pool, (c) =>
      recordNoticeAnswers(c, [{ appId, openid, templateId: TPL, accept }]),
    );
  const notice = (fields: Partial<NewMessage> = {}) =>
    aNewMessage({ appId, openid, channel: 'notice', payload: aNoticeMessage(TPL), ...fields });
  const withNoticeFallback = (fields: Partial<NewMessage> = {}) =>
    aNewMessage({ appId, openid, fallback: aNoticeMessage(TPL), fallbackChannel: 'notice', ...fields });
  return { appId, openid, notice, withNoticeFallback };
}

const sendsLeft = async (appId: string, openid: string) =>
  (
    await db.pool.query<{ remaining: number }>(
      `SELECT remaining FROM notice_acceptances WHERE app_id = $1 AND openid = $2 AND template_id = $3`,
      [appId, openid, TPL],
    )
  ).rows[0]?.remaining ?? 0;

const rowOf = async (id: string) =>
  (
    await db.pool.query<{
      status: string;
      status_reason: string | null;
      channel: string;
      notice_result: string;
    }>(`SELECT status, status_reason, channel, notice_result FROM scheduled_messages WHERE id = $1`, [id])
  ).rows[0];

describe('subscription notices in the claim', () => {
  it('lets one notice through per one-time acceptance, consuming it, and skips the next no_subscription', async () => {
    const f = await aFollowerWhoAnswered(true);
    const [first, second] = await seedMessages(
      db.pool,
      [f.notice({ dueAt: new Date(Date.now() - 50) }), f.notice()],
      { status: 'queued' },
    );

    const claim = await claimDue(db.pool, [first, second], 20, []);

    expect(claim.claimed.map((m) => [m.id, m.channel])).toEqual([[first, 'notice']]);
    expect(claim.skipped).toEqual([{ id: second, reason: 'no_subscription' }]);
    expect(await sendsLeft(f.appId, f.openid)).toBe(0);
  });

  it('adds up repeated acceptances, one send each, across claims', async () => {
    const f = await aFollowerWhoAnswered(true, true);
    const [first] = await seedMessages(db.pool, [f.notice()], { status: 'queued' });
    expect((await claimDue(db.pool, [first], 20, [])).claimed).toHaveLength(1);
    const [second] = await seedMessages(db.pool, [f.notice()], { status: 'queued' });
    expect((await claimDue(db.pool, [second], 20, [])).claimed).toHaveLength(1);
    const [third] = await seedMessages(db.pool, [f.notice()], { status: 'queued' });

    expect((await claimDue(db.pool, [third], 20, [])).skipped).toEqual([
      { id: third, reason: 'no_subscription' },
    ]);
  });

  it('skips a notice no_subscription once the follower rejected the template, whatever they accepted before', async () => {
    const f = await aFollowerWhoAnswered(true, true, false);
    const [id] = await seedMessages(db.pool, [f.notice()], { status: 'queued' });

    const claim = await claimDue(db.pool, [id], 20, []);

    expect(claim.claimed).toEqual([]);
    expect(await rowOf(id)).toMatchObject({ status: 'skipped', status_reason: 'no_subscription' });
  });

  it('skips a notice to a follower who never answered, even on an account whose window is not checked', async () => {
    const f = await aFollowerWhoAnswered();
    const [id] = await seedMessages(db.pool, [f.notice()], { status: 'queued' });

    expect((await claimDue(db.pool, [id], 20, [f.appId])).skipped).toEqual([
      { id, reason: 'no_subscription' },
    ]);
  });

  it('sends a closed-window step on its notice fallback when the follower accepted, consuming the acceptance', async () => {
    const f = await aFollowerWhoAnswered(true);
    const [id] = await seedMessages(db.pool, [f.withNoticeFallback()], { status: 'queued' });

    const claim = await claimDue(db.pool, [id], 20, []);

    expect(claim.claimed).toMatchObject([
      { id, channel: 'notice', claimedAs: 'send:fallback', payload: aNoticeMessage(TPL) },
    ]);
    expect(await sendsLeft(f.appId, f.openid)).toBe(0);
  });

  it('skips a closed-window step with a notice fallback no_subscription when the follower did not accept', async () => {
    const f = await aFollowerWhoAnswered(false);
    const [id] = await seedMessages(db.pool, [f.withNoticeFallback()], { status: 'queued' });

    expect((await claimDue(db.pool, [id], 20, [])).skipped).toEqual([{ id, reason: 'no_subscription' }]);
  });

  it('sends a step in an open window as a customer-service message and leaves the acceptance for later', async () => {
    const f = await aFollowerWhoAnswered(true);
    await withTransaction(db.pool, (c) =>
      recordInteractions(c, [
        {
          appId: f.appId,
          openid: f.openid,
          kind: 'message',
          detail: 'hi',
          at: new Date(),
          rule: { count: 5, windowMs: 172_800_000 },
        },
      ]),
    );
    const [id] = await seedMessages(db.pool, [f.withNoticeFallback()], { status: 'queued' });

    const claim = await claimDue(db.pool, [id], 20, []);

    expect(claim.claimed).toMatchObject([
      { id, channel: 'custom', claimedAs: 'send:window', payload: aTextMessage() },
    ]);
    expect(await sendsLeft(f.appId, f.openid)).toBe(1);
  });
});

describe('subscription notice delivery results', () => {
  it('records a sent event on the oldest sent notice of the template without a result, and on nothing else', async () => {
    const f = await aFollowerWhoAnswered();
    const [older, newer] = await seedMessages(db.pool, [f.notice(), f.notice()], { status: 'sent' });
    await db.pool.query(`UPDATE scheduled_messages SET sent_at = now() - interval '1 minute' WHERE id = $1`, [
      older,
    ]);
    await db.pool.query(`UPDATE scheduled_messages SET sent_at = now() WHERE id = $1`, [newer]);
    const result = { appId: f.appId, openid: f.openid, templateId: TPL, result: 'success' };

    const matched = await withTransaction(db.pool, async (c) => [
      await recordNoticeResult(c, result),
      await recordNoticeResult(c, { ...result, result: 'failed:10005' }),
      await recordNoticeResult(c, result),
    ]);

    expect(matched).toEqual([true, true, false]);
    expect((await rowOf(older)).notice_result).toBe('success');
    expect((await rowOf(newer)).notice_result).toBe('failed:10005');
  });
});
