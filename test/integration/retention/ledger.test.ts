import { withTransaction } from '../../../src/db/pool';
import { recordInteractions, unsubscribeAndForget } from '../../../src/store/follower-store';
import { createTestDb, type TestDb } from '../../helpers/db';
import { aPruner, attemptRows, countRows, messageRows } from './rows';

/**
 * The ledger's compaction: a cancellation row old enough is deleted once no message it covers may still
 * be sent; and what is left of a follower who unfollowed once the pruner has been by.
 */
let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 4 });
});
beforeEach(() =>
  db.pool.query('TRUNCATE scheduled_messages, delivery_attempts, cancellations, webhook_pushes'),
);
afterAll(() => db.drop());

/** Appends a ledger row recorded `ago` (after every message inserted so far: a larger seq). */
async function ledgerRow(scope: string, target: string, ago = '2 hours', reason = 'test'): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO cancellations (app_id, scope, target, reason, actor, created_at)
     VALUES ('wx-retention', $1, $2, $3, 'test', now() - $4::interval) RETURNING id::text`,
    [scope, target, reason, ago],
  );
  return rows[0].id;
}

async function aSequenceWithEnrollment(
  openid: string,
): Promise<{ sequenceId: string; enrollmentId: string }> {
  const { rows } = await db.pool.query<{ sequence_id: string; enrollment_id: string }>(
    `WITH s AS (INSERT INTO sequences (app_id, name) VALUES ('wx-retention', 'drip') RETURNING id)
     INSERT INTO enrollments (app_id, openid, sequence_id, version, dedupe)
     SELECT 'wx-retention', $1, id, 1, $1 FROM s RETURNING sequence_id, id AS enrollment_id`,
    [openid],
  );
  return { sequenceId: rows[0].sequence_id, enrollmentId: rows[0].enrollment_id };
}

describe('the ledger compaction', () => {
  it('deletes the old rows that cover nothing that may still be sent, and keeps the others', async () => {
    const keep: string[] = [];
    const gone: string[] = [];
    const [queued] = await messageRows(db.pool, 1, 'queued', '3 days', {
      cancelKey: 'k-open',
      openid: 'o-open',
    });
    // Failed within the age (an older one is pruned first, and a replay cannot find it any more).
    await messageRows(db.pool, 1, 'failed', '10 minutes', { cancelKey: 'k-failed' });
    const [cancelled] = await messageRows(db.pool, 1, 'cancelled', '3 days', { cancelKey: 'k-done' });
    const drip = await aSequenceWithEnrollment('o-drip');
    await messageRows(db.pool, 1, 'queued', '3 days', { openid: 'o-drip', ...drip });
    const ended = await aSequenceWithEnrollment('o-ended');
    await messageRows(db.pool, 1, 'sent', '3 days', { openid: 'o-ended', ...ended });

    keep.push(await ledgerRow('message', queued));
    keep.push(await ledgerRow('cancel_key', 'k-open'));
    keep.push(await ledgerRow('follower', 'o-open'));
    keep.push(await ledgerRow('sequence', drip.sequenceId));
    keep.push(await ledgerRow('enrollment', drip.enrollmentId));
    keep.push(await ledgerRow('account', 'wx-retention'));
    // A replay of the dead letters puts a failed message back in the queue: its claim must still see this.
    keep.push(await ledgerRow('cancel_key', 'k-failed'));
    // The sequence results count an exit from its row, as long as the enrollment is kept.
    keep.push(await ledgerRow('enrollment', ended.enrollmentId, '2 hours', 'exit:message:stop'));

    gone.push(await ledgerRow('message', cancelled));
    gone.push(await ledgerRow('cancel_key', 'k-done'));
    gone.push(await ledgerRow('follower', 'o-nobody'));
    gone.push(await ledgerRow('sequence', ended.sequenceId));
    gone.push(await ledgerRow('enrollment', ended.enrollmentId));
    // A message created after a cancellation is not covered by it.
    gone.push(await ledgerRow('cancel_key', 'k-later'));
    await messageRows(db.pool, 1, 'queued', '1 minute', { cancelKey: 'k-later' });
    // Too young (the newest row, as in life: the walk ends at it): the age (1 h here), and the floor against transactions still open (1 h by default).
    keep.push(await ledgerRow('cancel_key', 'k-done', '30 minutes'));

    // Batches of 3: the walk goes on across batches.
    const { pruner, pruned } = aPruner(db.pool, { batchSize: 3 });
    expect(await pruner.runOnce()).toMatchObject({ ledger: gone.length });

    const left = await db.pool.query<{ id: string }>('SELECT id::text AS id FROM cancellations');
    const byNumber = (a: string, b: string) => Number(a) - Number(b);
    expect(left.rows.map((r) => r.id).sort(byNumber)).toEqual(keep.sort(byNumber));
    expect(await pruned('cancellations')).toBe(gone.length);
  });
});

describe('a follower who unfollowed, once the pruner has been by', () => {
  it('keeps only what the erasure rule allows: the openid marked unsubscribed, nothing else', async () => {
    const openid = 'o-leaver';
    const sent = await messageRows(db.pool, 2, 'sent', '3 days', { openid });
    await attemptRows(db.pool, sent);
    await messageRows(db.pool, 1, 'queued', '3 days', { openid });
    await db.pool.query(
      `INSERT INTO webhook_pushes (app_id, dedupe_key, openid, msg_type, event, fields, processed_at)
       VALUES ('wx-retention', 'h1', $1, 'event', 'unsubscribe', '{"Event":"unsubscribe"}', now())`,
      [openid],
    );
    await withTransaction(db.pool, async (client) => {
      const at = new Date();
      await recordInteractions(client, [
        {
          appId: 'wx-retention',
          openid,
          kind: 'message',
          detail: 'hi',
          at,
          rule: { count: 5, windowMs: 1000 },
        },
      ]);
      await client.query(
        `INSERT INTO cancellations (app_id, scope, target, reason, actor) VALUES ('wx-retention', 'follower', $1, 'unsubscribed', 'webhook')`,
        [openid],
      );
      await unsubscribeAndForget(client, { appId: 'wx-retention', openid, at });
    });
    // Time passes: everything it left is older than the age (and the ledger's floor).
    await db.pool.query(
      `UPDATE scheduled_messages SET updated_at = now() - interval '2 hours' WHERE openid = ''`,
    );
    await db.pool.query(`UPDATE webhook_pushes SET received_at = now() - interval '2 hours'`);
    await db.pool.query(
      `UPDATE cancellations SET created_at = now() - interval '2 hours' WHERE target = $1`,
      [openid],
    );

    await aPruner(db.pool).pruner.runOnce();

    const follower = await db.pool.query(`SELECT subscribed FROM followers WHERE openid = $1`, [openid]);
    expect(follower.rows).toEqual([{ subscribed: false }]);
    expect(await countRows(db.pool, 'scheduled_messages', `openid IN ('', 'o-leaver')`)).toBe(0);
    expect(await countRows(db.pool, 'delivery_attempts')).toBe(0);
    expect(await countRows(db.pool, 'webhook_pushes')).toBe(0);
    expect(await countRows(db.pool, 'interactions')).toBe(0);
    expect(await countRows(db.pool, 'cancellations', `target = 'o-leaver'`)).toBe(0);
  });
});
