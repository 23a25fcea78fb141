import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../../../src/accounts/secret-box';
import { insertAccount } from '../../../src/store/accounts';
import { claimDue } from '../../../src/store/claim-due';
import {
  reserveSends,
  SEND_RATE_BURST_MS,
  SEND_RATE_HORIZON_MS,
  sentToday,
} from '../../../src/store/send-pacing';
import { aNewMessage, anAppId, aStoredAccount, aTemplateMessage } from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';
import { seedMessages } from '../../helpers/seed';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 8 });
});
afterAll(() => db.drop());

const box = createSecretBox(randomBytes(32));
async function anAccount(sendRatePerSecond: number): Promise<string> {
  const appId = anAppId();
  await insertAccount(db.pool, { ...aStoredAccount(box, { appId }), sendRatePerSecond });
  return appId;
}

describe('the deployment-wide send rate (send_pacing)', () => {
  it('gives concurrent reservations one slot each at the account’s rate, after one burst at most', async () => {
    const appId = await anAccount(100); // one slot every 10 ms
    const {
      rows: [{ t0 }],
    } = await db.pool.query<{ t0: Date }>(`SELECT clock_timestamp() AS t0`);
    const started = performance.now();
    // 40 claims of 10 messages at once, from 8 connections: 400 sends, 4 s at 100/s.
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => reserveSends(db.pool, [{ appId, custom: 10, template: 0 }])),
    );
    const elapsed = performance.now() - started;
    expect(answers.every(([r]) => r.intervalMs === 10)).toBe(true);
    const {
      rows: [{ reserved_ms }],
    } = await db.pool.query<{ reserved_ms: string }>(
      `SELECT extract(epoch FROM next_at - $2::timestamptz) * 1000 AS reserved_ms FROM send_pacing WHERE app_id = $1`,
      [appId, t0],
    );
    // Every slot is counted once (no update lost), and only the burst is taken ahead of the clock.
    expect(Number(reserved_ms)).toBeGreaterThanOrEqual(4000 - SEND_RATE_BURST_MS);
    expect(Number(reserved_ms)).toBeLessThanOrEqual(4000 + elapsed);
    // The last claim's slots end where the account's next slot begins.
    const last = answers.map(([r]) => r.startInMs).sort((a, b) => a - b);
    expect(last.at(-1)! - last[0]).toBeGreaterThanOrEqual(3900 - elapsed - SEND_RATE_BURST_MS);
  });

  it('counts the day’s sends by channel, from zero on WeChat’s next day', async () => {
    const appId = await anAccount(1000);
    await reserveSends(db.pool, [{ appId, custom: 3, template: 2 }]);
    await reserveSends(db.pool, [{ appId, custom: 1, template: 0 }]);
    expect((await sentToday(db.pool)).get(appId)).toEqual({ custom: 4, template: 2 });

    await db.pool.query(`UPDATE send_pacing SET day = day - 1 WHERE app_id = $1`, [appId]);
    expect((await sentToday(db.pool)).get(appId)).toBeUndefined();
    await reserveSends(db.pool, [{ appId, custom: 0, template: 1 }]);
    expect((await sentToday(db.pool)).get(appId)).toEqual({ custom: 0, template: 1 });
  });

  it('reserves nothing for an app id that has no account (deleted meanwhile)', async () => {
    const known = await anAccount(1000);
    const answer = await reserveSends(db.pool, [
      { appId: anAppId(), custom: 1, template: 0 },
      { appId: known, custom: 1, template: 0 },
    ]);
    expect(answer.map((r) => r.appId)).toEqual([known]);
  });

  it('the claim leaves an account’s due messages waiting, spread at its rate and unwritten, while its reservations reach past the horizon', async () => {
    const appId = await anAccount(50); // 20 ms apart
    const other = await anAccount(50);
    const due = () =>
      aNewMessage({ appId, channel: 'template', payload: aTemplateMessage(), dueAt: new Date() });
    const ids = await seedMessages(db.pool, [due(), due(), due()], { status: 'queued' });
    const [free] = await seedMessages(
      db.pool,
      [aNewMessage({ appId: other, channel: 'template', payload: aTemplateMessage(), dueAt: new Date() })],
      { status: 'queued' },
    );
    // 100 sends reserved: 2 s ahead at 50/s, past the 1 s horizon.
    await reserveSends(db.pool, [{ appId, custom: 100, template: 0 }]);

    const claim = await claimDue(db.pool, [...ids, free], 20, []);

    expect(claim.claimed.map((m) => m.id)).toEqual([free]);
    const early = claim.early.sort((a, b) => a.remainingMs - b.remainingMs);
    expect(early.map((e) => e.reason)).toEqual(Array(3).fill('send_rate'));
    expect(early.map((e) => e.id).sort()).toEqual([...ids].sort());
    const aheadMs = 100 * 20 - SEND_RATE_HORIZON_MS;
    expect(early[0].remainingMs).toBeGreaterThan(aheadMs - 200);
    expect(early[0].remainingMs).toBeLessThanOrEqual(aheadMs);
    expect(early[1].remainingMs - early[0].remainingMs).toBeCloseTo(20, 1); // each row reads the clock: microseconds apart
    expect(early[2].remainingMs - early[1].remainingMs).toBeCloseTo(20, 1); // each row reads the clock: microseconds apart
    const { rows } = await db.pool.query(
      `SELECT status, updated_at = created_at AS untouched FROM scheduled_messages WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    expect(rows).toEqual(Array(3).fill({ status: 'queued', untouched: true }));
  });
});
