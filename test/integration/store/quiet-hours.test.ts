import { randomBytes, randomUUID } from 'node:crypto';
import { createSecretBox } from '../../../src/accounts/secret-box';
import type { QuietHours, SequenceQuietHours } from '../../../src/contract';
import { withTransaction } from '../../../src/db/pool';
import { insertAccount } from '../../../src/store/accounts';
import { claimDue } from '../../../src/store/claim-due';
import { recordInteractions } from '../../../src/store/follower-store';
import { appendCancellation } from '../../../src/store/ledger';
import type { NewMessage } from '../../../src/store/message-store';
import { insertSequence } from '../../../src/store/sequence-store';
import { aNewMessage, anAppId, anOpenid, aStoredAccount, aTemplateMessage } from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';
import { seedMessages } from '../../helpers/seed';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 4 });
});
afterAll(() => db.drop());

const box = createSecretBox(randomBytes(32));
const ZONE = 'Asia/Shanghai';

/** Quiet hours from an hour ago to `endInS` seconds from now, by the database's clock, in `zone`. */
async function quietUntil(endInS: number, zone = ZONE): Promise<{ quiet: QuietHours; end: Date }> {
  const { rows } = await db.pool.query<{ start: string; end: string; end_at: Date }>(
    `SELECT to_char(now() AT TIME ZONE $1 - interval '1 hour', 'HH24:MI:SS') AS start,
            to_char(now() AT TIME ZONE $1 + $2 * interval '1 second', 'HH24:MI:SS') AS end,
            date_trunc('second', now() + $2 * interval '1 second') AS end_at`,
    [zone, endInS],
  );
  return { quiet: { start: rows[0].start, end: rows[0].end }, end: rows[0].end_at };
}

/**
 * An account (default quiet hours `accountQuiet`), a sequence of it (`sequenceQuiet`; undefined inherits),
 * and a follower who wrote in (a 48 h window of 5), or followed (1 min) with `window: 'follow'`.
 */
async function aQuietFollower(opts: {
  accountQuiet?: QuietHours | null;
  sequenceQuiet?: SequenceQuietHours;
  window?: 'message' | 'follow';
  cap?: number;
}) {
  const appId = anAppId();
  const openid = anOpenid();
  await insertAccount(db.pool, {
    ...aStoredAccount(box, { appId }),
    windowPolicy: 'official',
    quietHours: opts.accountQuiet ?? null,
    frequencyCapPerDay: opts.cap ?? null,
  });
  const sequenceId = await withTransaction(db.pool, async (client) => {
    const rule =
      opts.window === 'follow' ? { count: 3, windowMs: 60_000 } : { count: 5, windowMs: 172_800_000 };
    const kind = opts.window === 'follow' ? 'subscribe' : 'message';
    await recordInteractions(client, [{ appId, openid, kind, detail: null, at: new Date(), rule }]);
    return insertSequence(
      client,
      {
        appId,
        name: 'quiet',
        trigger: { type: 'subscribe' },
        steps: [],
        wait: null,
        goal: null,
        paths: {},
        oncePerFollower: false,
        exits: [],
        ...(opts.sequenceQuiet === undefined ? {} : { quietHours: opts.sequenceQuiet }),
      },
      'active',
    );
  });
  const step = (fields: Partial<NewMessage> = {}, id = sequenceId) =>
    aNewMessage({
      appId,
      openid,
      frequencyCapped: true,
      step: { sequenceId: id, enrollmentId: randomUUID(), index: 0 },
      ...fields,
    });
  return { appId, openid, sequenceId, step };
}

const rowOf = async (id: string) =>
  (
    await db.pool.query<{ status: string; status_reason: string | null; due_at: Date; channel: string }>(
      `SELECT status, status_reason, due_at, channel FROM scheduled_messages WHERE id = $1`,
      [id],
    )
  ).rows[0];

describe('quiet hours in the claim', () => {
  it('moves a step due in them to their end while the window is still open then, and keeps it queued', async () => {
    const { quiet, end } = await quietUntil(3600);
    const f = await aQuietFollower({ accountQuiet: quiet });
    const [id] = await seedMessages(db.pool, [f.step()], { status: 'queued' });

    const claim = await claimDue(db.pool, [id], 20, []);

    expect(claim.claimed).toEqual([]);
    expect(claim.early.map((e) => [e.id, e.reason])).toEqual([[id, 'quiet_hours']]);
    expect(await rowOf(id)).toMatchObject({ status: 'queued', due_at: end });
    expect(claim.early[0].remainingMs).toBeGreaterThan(3_590_000);
  });

  it('skips (quiet_hours) at once a step without fallback whose window closes before they end', async () => {
    const { quiet } = await quietUntil(3600);
    const f = await aQuietFollower({ sequenceQuiet: quiet, window: 'follow' });
    const [id] = await seedMessages(db.pool, [f.step()], { status: 'queued' });

    const claim = await claimDue(db.pool, [id], 20, []);

    expect(claim.skipped).toEqual([{ id, reason: 'quiet_hours' }]);
    expect(await rowOf(id)).toMatchObject({ status: 'skipped', status_reason: 'quiet_hours' });
  });

  it('moves such a step with a fallback, which then goes out on its fallback once they end', async () => {
    const { quiet, end } = await quietUntil(3600);
    const f = await aQuietFollower({ sequenceQuiet: quiet, window: 'follow' });
    const [id] = await seedMessages(db.pool, [f.step({ fallback: aTemplateMessage() })], {
      status: 'queued',
    });

    expect((await claimDue(db.pool, [id], 20, [])).early.map((e) => e.reason)).toEqual(['quiet_hours']);
    expect(await rowOf(id)).toMatchObject({ status: 'queued', due_at: end });

    // The quiet hours are over (as if they had ended; the follow's window is closed by then).
    await db.pool.query(`UPDATE sequences SET quiet_hours = 'false' WHERE id = $1`, [f.sequenceId]);
    await db.pool.query(`UPDATE followers SET window_expires_at = now() WHERE app_id = $1`, [f.appId]);
    await db.pool.query(`UPDATE scheduled_messages SET due_at = now() WHERE id = $1`, [id]);
    const later = await claimDue(db.pool, [id], 20, []);
    expect(later.claimed.map((m) => [m.id, m.claimedAs, m.channel])).toEqual([
      [id, 'send:fallback', 'template'],
    ]);
  });

  it('keeps an A/B step’s variant, and lets the frequency cap move it on to the next day when it falls due', async () => {
    const { quiet, end } = await quietUntil(3600);
    const f = await aQuietFollower({ accountQuiet: quiet, cap: 1 });
    const [id] = await seedMessages(
      db.pool,
      [f.step({ step: { sequenceId: f.sequenceId, enrollmentId: randomUUID(), index: 0, variant: 'B' } })],
      {
        status: 'queued',
      },
    );
    await claimDue(db.pool, [id], 20, []);
    expect(await rowOf(id)).toMatchObject({ status: 'queued', due_at: end });

    // Their end has come, and the follower's cap for the day is used up by then: on to the next day.
    await db.pool.query(`UPDATE accounts SET quiet_hours = NULL WHERE app_id = $1`, [f.appId]);
    await db.pool.query(
      `UPDATE followers SET capped_day = (now() AT TIME ZONE 'Asia/Shanghai')::date, capped_sent = 1 WHERE app_id = $1`,
      [f.appId],
    );
    await db.pool.query(`UPDATE scheduled_messages SET due_at = now() WHERE id = $1`, [id]);
    expect((await claimDue(db.pool, [id], 20, [])).early.map((e) => e.reason)).toEqual(['frequency_cap']);
    const { rows } = await db.pool.query<{ variant: string }>(
      `SELECT variant FROM scheduled_messages WHERE id = $1`,
      [id],
    );
    expect(rows[0].variant).toBe('B');
  });

  it('lets a cancellation win when the moved step falls due', async () => {
    const { quiet } = await quietUntil(3600);
    const f = await aQuietFollower({ accountQuiet: quiet });
    const [id] = await seedMessages(db.pool, [f.step()], { status: 'queued' });
    await claimDue(db.pool, [id], 20, []);
    await appendCancellation(db.pool, {
      appId: f.appId,
      scope: 'sequence',
      target: f.sequenceId,
      reason: 'sequence paused',
      actor: 'test',
    });
    await db.pool.query(`UPDATE scheduled_messages SET due_at = now() WHERE id = $1`, [id]);

    expect((await claimDue(db.pool, [id], 20, [])).cancelled).toEqual([id]);
    expect(await rowOf(id)).toMatchObject({ status: 'cancelled' });
  });

  it('leaves API messages and sequences that turned quiet hours off alone, and applies a sequence’s own', async () => {
    const { quiet } = await quietUntil(3600);
    const off = await aQuietFollower({ accountQuiet: quiet, sequenceQuiet: false });
    const own = await aQuietFollower({ accountQuiet: null, sequenceQuiet: quiet });
    const ids = await seedMessages(
      db.pool,
      [aNewMessage({ appId: off.appId, openid: off.openid }), off.step(), own.step()],
      { status: 'queued' },
    );

    const claim = await claimDue(db.pool, ids, 20, []);

    expect(claim.claimed.map((m) => m.id).sort()).toEqual([ids[0], ids[1]].sort());
    expect(claim.early.map((e) => [e.id, e.reason])).toEqual([[ids[2], 'quiet_hours']]);
  });

  it('moves every step of an account whose window is not checked here', async () => {
    const { quiet } = await quietUntil(3600);
    const f = await aQuietFollower({ accountQuiet: quiet, window: 'follow' });
    const [id] = await seedMessages(db.pool, [f.step()], { status: 'queued' });
    expect((await claimDue(db.pool, [id], 20, [f.appId])).early.map((e) => e.reason)).toEqual([
      'quiet_hours',
    ]);
  });

  it('skips a step that would be stale by their end, rather than holding it', async () => {
    const { quiet } = await quietUntil(3600);
    const f = await aQuietFollower({ accountQuiet: quiet });
    const [id] = await seedMessages(db.pool, [f.step({ maxLatenessMs: 60_000 })], { status: 'queued' });
    expect((await claimDue(db.pool, [id], 20, [])).skipped).toEqual([{ id, reason: 'quiet_hours' }]);
  });

  it('counts a moved step against neither the frequency cap nor the window: another sequence’s step goes out', async () => {
    const { quiet } = await quietUntil(3600);
    const f = await aQuietFollower({ accountQuiet: quiet, cap: 1 });
    const loud = await withTransaction(db.pool, (client) =>
      insertSequence(
        client,
        {
          appId: f.appId,
          name: 'loud',
          trigger: { type: 'subscribe' },
          steps: [],
          wait: null,
          goal: null,
          paths: {},
          oncePerFollower: false,
          exits: [],
          quietHours: false,
        },
        'active',
      ),
    );
    // The quiet one is due first: were it counted, the cap (1) would hold the other back.
    const ids = await seedMessages(
      db.pool,
      [f.step({ dueAt: new Date(Date.now() - 100) }), f.step({}, loud)],
      { status: 'queued' },
    );

    const claim = await claimDue(db.pool, ids, 20, []);

    expect(claim.claimed.map((m) => m.id)).toEqual([ids[1]]);
    expect(claim.early.map((e) => [e.id, e.reason])).toEqual([[ids[0], 'quiet_hours']]);
  });
});
