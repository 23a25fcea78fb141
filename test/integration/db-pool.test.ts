import { withTransaction } from '../../src/db/pool';
import { createTestDb, type TestDb } from '../helpers/db';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 2 });
});
afterAll(() => db.drop());

describe('withTransaction', () => {
  // Without a listener, the client's `error` event is an unhandled error: jest fails this file (and a
  // worker process would crash), which is what a Postgres restart mid-claim did.
  it('when the server ends the connection mid-transaction, rejects and does not reuse the client', async () => {
    let pid = 0;
    await expect(
      withTransaction(db.pool, async (client) => {
        pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        // What a Postgres restart does to a connection in use: the server ends it.
        await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
        await client.query('SELECT 1');
      }),
    ).rejects.toThrow();
    // Let the socket's close and error events run.
    await new Promise((r) => setTimeout(r, 200));
    const { rows } = await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(rows[0].pid).not.toBe(pid);
  });
});
