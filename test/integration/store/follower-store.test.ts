import { withTransaction } from '../../../src/db/pool';
import { recordInteractions } from '../../../src/store/follower-store';
import { createTestDb, type TestDb } from '../../helpers/db';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 2 });
});
afterAll(() => db.drop());

const interaction = (kind: 'message' | 'click', at: Date) =>
  withTransaction(db.pool, (client) =>
    recordInteractions(client, [
      {
        appId: 'wxstore000000001',
        openid: 'o-late',
        kind,
        detail: null,
        at,
        rule: kind === 'message' ? { count: 5, windowMs: 172_800_000 } : { count: 3, windowMs: 60_000 },
      },
    ]),
  );

describe('recordInteractions', () => {
  it('an older interaction processed after a newer one records the interaction but keeps the newer window', async () => {
    const clickAt = new Date();
    await interaction('click', clickAt);
    await interaction('message', new Date(clickAt.getTime() - 50));
    const { rows } = await db.pool.query(
      `SELECT window_kind, window_remaining, window_opened_at FROM followers WHERE openid = 'o-late'`,
    );
    expect(rows).toEqual([{ window_kind: 'click', window_remaining: 3, window_opened_at: clickAt }]);
    const counted = await db.pool.query(
      `SELECT count(*)::int AS n FROM interactions WHERE openid = 'o-late'`,
    );
    expect(counted.rows[0].n).toBe(2);
  });
});
