import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../../../src/accounts/secret-box';
import { withTransaction } from '../../../src/db/pool';
import { insertAccount } from '../../../src/store/accounts';
import { claimDue } from '../../../src/store/claim-due';
import { recordInteractions } from '../../../src/store/follower-store';
import type { NewMessage } from '../../../src/store/message-store';
import { aNewMessage, anAppId, anOpenid, aStoredAccount, aTemplateMessage } from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';
import { seedMessages } from '../../helpers/seed';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 4 });
});
afterAll(() => db.drop());

const box = createSecretBox(randomBytes(32));
/** An account with a frequency cap, and a follower of it with a 48 h window of 5 (they wrote in). */
async function aCappedFollower(cap: number | null) {
  const appId = anAppId();
  const openid = anOpenid();
  await insertAccount(db.pool, {
    ...aStoredAccount(box, { appId }),
    windowPolicy: 'official',
    frequencyCapPerDay: cap,
  });
  await withTransaction(db.pool, (client) =>
    recordInteractions(client, [
      {
        appId,
        openid,
        kind: 'message',
        detail: 'hi',
        at: new Date(),
        rule: { count: 5, windowMs: 172_800_000 },
      },
    ]),
  );
  const message = (fields: Partial<NewMessage> = {}) =>
    aNewMessage({ appId, openid, dueAt: new Date(), frequencyCapped: true, ...fields });
  return { appId, openid, message };
}

/** The start of the next day in Asia/Shanghai, by the database's clock. */
async function nextShanghaiDay(): Promise<Date> {
  const { rows } = await db.pool.query<{ t: Date }>(
    `SELECT (date_trunc('day', now() AT TIME ZONE 'Asia/Shanghai') + interval '1 day') AT TIME ZONE 'Asia/Shanghai' AS t`,
  );
  return rows[0].t;
}

const statusOf = async (id: string) =>
  (
    await db.pool.query<{ status: string; status_reason: string | null; due_at: Date }>(
      `SELECT status, status_reason, due_at FROM scheduled_messages WHERE id = $1`,
      [id],
    )
  ).rows[0];

describe('the frequency cap in the claim', () => {
  it('claims a follower’s capped messages up to the cap, across claims, and moves the rest to the next day', async () => {
    const f = await aCappedFollower(2);
    const [first] = await seedMessages(db.pool, [f.message()], { status: 'queued' });
    expect((await claimDue(db.pool, [first], 20, [])).claimed.map((m) => m.id)).toEqual([first]);

    // The earlier one goes first (ties are broken by id, so the two are due a moment apart).
    const [second, third] = await seedMessages(
      db.pool,
      [f.message({ dueAt: new Date(Date.now() - 50) }), f.message()],
      { status: 'queued' },
    );
    const claim = await claimDue(db.pool, [second, third], 20, []);

    expect(claim.claimed.map((m) => m.id)).toEqual([second]);
    expect(claim.early.map((e) => [e.id, e.reason])).toEqual([[third, 'frequency_cap']]);
    const next = await nextShanghaiDay();
    expect(await statusOf(third)).toMatchObject({ status: 'queued', due_at: next });
    expect(claim.early[0].remainingMs).toBeGreaterThan(next.getTime() - Date.now() - 5000);
  });

  it('skips (frequency_cap) one that could not go out the next day: stale by then, or its window closed', async () => {
    const f = await aCappedFollower(1);
    const [sent] = await seedMessages(db.pool, [f.message()], { status: 'queued' });
    await claimDue(db.pool, [sent], 20, []);
    // Stale 5 s from now (long before the next day, even just before midnight); and a customer-service
    // message without fallback in a window that ends today.
    await db.pool.query(
      `UPDATE followers SET window_expires_at = now() + interval '1 minute' WHERE app_id = $1`,
      [f.appId],
    );
    const [stale, closed] = await seedMessages(
      db.pool,
      [f.message({ maxLatenessMs: 5_000, channel: 'template', payload: aTemplateMessage() }), f.message()],
      { status: 'queued' },
    );
    const claim = await claimDue(db.pool, [stale, closed], 20, []);

    expect(claim.claimed).toEqual([]);
    expect(claim.skipped.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [stale, closed].sort().map((id) => ({ id, reason: 'frequency_cap' })),
    );
  });

  it('does not count or hold messages that are not capped, nor any message of an account without a cap', async () => {
    const capped = await aCappedFollower(1);
    const ids = await seedMessages(
      db.pool,
      [
        capped.message(),
        capped.message({ frequencyCapped: false }),
        capped.message({ frequencyCapped: false }),
      ],
      { status: 'queued' },
    );
    expect((await claimDue(db.pool, ids, 20, [])).claimed).toHaveLength(3);

    const free = await aCappedFollower(null);
    const more = await seedMessages(db.pool, [free.message(), free.message(), free.message()], {
      status: 'queued',
    });
    expect((await claimDue(db.pool, more, 20, [])).claimed).toHaveLength(3);
  });

  it('counts from zero on the follower’s next day', async () => {
    const f = await aCappedFollower(1);
    const [a] = await seedMessages(db.pool, [f.message()], { status: 'queued' });
    await claimDue(db.pool, [a], 20, []);
    await db.pool.query(`UPDATE followers SET capped_day = capped_day - 1 WHERE app_id = $1`, [f.appId]);
    const [b] = await seedMessages(db.pool, [f.message()], { status: 'queued' });
    expect((await claimDue(db.pool, [b], 20, [])).claimed.map((m) => m.id)).toEqual([b]);
  });
});
