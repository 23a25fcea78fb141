import type { AuditEntry } from '../../../src/contract';
import { listChanges, recordChange, type Actor } from '../../../src/store/audit-log';
import { createTestDb, type TestDb } from '../../helpers/db';

/** The audit log's page read: newest first by entry, page after page, one account's or all. */
let db: TestDb;
const BY: Actor = { actor: { kind: 'admin_token' }, source: '127.0.0.1', requestId: null };

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => db.drop());

/** The entry's number, as its one field's name carries it (`field7`). */
const numberOf = (e: AuditEntry): number => Number((e.details.fields as string[])[0].slice('field'.length));

describe('listChanges', () => {
  it('with more than nine entries, pages through them newest first, each once', async () => {
    const client = await db.pool.connect();
    try {
      for (let i = 0; i < 25; i++) {
        await recordChange(client, BY, {
          action: 'account.updated',
          target: { type: 'account', id: i % 2 === 0 ? 'wx-even' : 'wx-odd' },
          appId: i % 2 === 0 ? 'wx-even' : 'wx-odd',
          details: { fields: [`field${i}`] },
        });
      }
    } finally {
      client.release();
    }

    const seen: number[] = [];
    let before: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listChanges>> = await listChanges(db.pool, {
        appId: null,
        limit: 10,
        before,
      });
      seen.push(...page.entries.map(numberOf));
      before = page.next;
    } while (before !== null);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => 24 - i));

    const even = await listChanges(db.pool, { appId: 'wx-even', limit: 20, before: null });
    expect(even.entries.map(numberOf)).toEqual(Array.from({ length: 13 }, (_, i) => 24 - 2 * i));
    expect(even.next).toBeNull();
  });
});
