import pg from 'pg';
import { withTransaction } from '../../src/db/pool';
import { createTestDb, TEST_DATABASE_URL, type TestDb } from '../helpers/db';

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

describe('createPool', () => {
  it('returns bigint values and counts as numbers, through the pool and through its transactions', async () => {
    const { rows } = await db.pool.query<{ big: unknown; n: unknown }>(
      'SELECT 9007199254740991::bigint AS big, count(*) AS n FROM generate_series(1, 3)',
    );
    expect(rows[0]).toEqual({ big: 9007199254740991, n: 3 });
    const inTransaction = await withTransaction(db.pool, async (client) => {
      return (await client.query<{ n: unknown }>('SELECT count(*) AS n FROM generate_series(1, 2)')).rows[0]
        .n;
    });
    expect(inTransaction).toBe(2);
  });

  it('leaves another pg client in the same process with the pg default: bigint as a string', async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ big: unknown }>('SELECT 42::bigint AS big');
      expect(rows[0].big).toBe('42');
    } finally {
      await client.end();
    }
  });
});
