import { randomUUID } from 'node:crypto';
import { migrate } from '../../src/db/migrate';
import { aNewMessage, aTextMessage } from '../helpers/builders';
import { resetSchemaTo } from '../helpers/db';
import { createHarness, type Harness, waitFor } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';

/**
 * Migration 0023 retires `pending`: a database at 0022 holding rows the protocol before 0008 left
 * `pending` comes out of it with those rows `queued` and named by outbox entries, the status refused from
 * then on, and the relay delivering them like any other schedule whose wake-up was not confirmed.
 */
const RETIRE_PENDING = 23;

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ RELAY_INTERVAL_MS: '200', RELAY_PENDING_AFTER_MS: '500' });
});
afterAll(() => h?.close());

const resetTo = (version: number) => resetSchemaTo(h.db, version);

describe('migration 0023 (pending retired)', () => {
  it('moves leftover pending rows into the outbox, forbids the status, and the rows are delivered once', async () => {
    await resetTo(RETIRE_PENDING);
    // As the protocol before 0008 left them: `pending`, no outbox entry, their api gone an hour ago. Written
    // with that schema's columns (the store's insert writes today's).
    // Ids as that release made them: random (version 4).
    const messages = ['left-1', 'left-2', 'left-3'].map((tag) =>
      aNewMessage({ id: randomUUID(), payload: aTextMessage(tag), dueAt: new Date(Date.now() - 60_000) }),
    );
    const ids = messages.map((m) => m.id);
    await h.db.pool.query(
      `INSERT INTO scheduled_messages (id, app_id, openid, channel, payload, due_at, status, created_at, updated_at)
       SELECT id, app_id, openid, 'custom', payload, now() - interval '1 minute', 'pending',
              now() - interval '1 hour', now() - interval '1 hour'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[]) AS m(id, app_id, openid, payload)`,
      [
        ids,
        messages.map((m) => m.appId),
        messages.map((m) => m.openid),
        messages.map((m) => JSON.stringify(m.payload)),
      ],
    );

    // 0023 runs first; later migrations may follow it.
    expect((await migrate(h.db.pool, silentLogger))[0]).toMatch(/^0023_/);

    const { rows: statuses } = await h.db.pool.query<{ status: string }>(
      'SELECT DISTINCT status FROM scheduled_messages',
    );
    expect(statuses).toEqual([{ status: 'queued' }]);
    const { rows: entries } = await h.db.pool.query<{ ids: string[]; age_s: number }>(
      `SELECT message_ids::text[] AS ids, extract(epoch FROM now() - created_at)::float8 AS age_s
       FROM wake_up_outbox`,
    );
    expect(entries.map((e) => [...e.ids].sort())).toEqual([[...ids].sort()]);
    // The entry is as old as the rows it took over: the backlog's age gauge shows how long they waited.
    expect(entries[0].age_s).toBeGreaterThan(3500);
    await expect(
      h.db.pool.query(`UPDATE scheduled_messages SET status = 'pending' WHERE id = $1`, [ids[0]]),
    ).rejects.toThrow(/scheduled_messages_status_check/);

    await h.start();
    const received = () =>
      h.simulator.messages().map((m) => (m.body as { text: { content: string } }).text.content);
    expect(await waitFor(() => received().length >= 3, 20_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1000)); // a moment in which a duplicate would arrive
    const { rows: left } = await h.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM wake_up_outbox',
    );
    expect(received().sort()).toEqual(['left-1', 'left-2', 'left-3']);
    expect(left[0].n).toBe(0);
  });
});
