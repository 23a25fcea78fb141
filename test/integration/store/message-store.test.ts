import { randomUUID } from 'node:crypto';
import { newMessageId } from '../../../src/store/message-id';
import { appendCancellation } from '../../../src/store/ledger';
import { insertMessages } from '../../../src/store/insert-messages';
import { findMessage, type NewMessage } from '../../../src/store/message-store';
import { aNewMessage, aTemplateMessage, aTextMessage, APP_ID } from '../../helpers/builders';
import { createTestDb, TEST_HORIZON_MS, type TestDb } from '../../helpers/db';

/** The message store's statements, read back from the table itself. */
let db: TestDb;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => db.drop());

describe('insertMessages', () => {
  it('writes every field of a new message into its own column', async () => {
    // Every value distinct, so that a value bound to a neighbouring column cannot go unnoticed.
    const message: NewMessage = aNewMessage({
      channel: 'custom',
      payload: aTextMessage('the payload'),
      dueAt: new Date('2030-01-02T03:04:05.678Z'),
      idempotencyKey: 'idem-1',
      requestHash: 'hash-1',
      cancelKey: 'key-1',
      maxLatenessMs: 4321,
      requestId: 'req-1',
      frequencyCapped: true,
      fallback: aTemplateMessage('the fallback'),
      step: { sequenceId: randomUUID(), enrollmentId: randomUUID(), index: 7 },
    });

    const { created, existing } = await insertMessages(db.pool, [message], TEST_HORIZON_MS);

    expect(created.map((m) => m.id)).toEqual([message.id]);
    expect(existing).toEqual([]);
    const { rows } = await db.pool.query(
      `SELECT app_id, openid, channel, payload, due_at, idempotency_key, request_hash, cancel_key, sequence_id,
              enrollment_id, step_index, fallback, max_lateness_ms, request_id, status, frequency_capped
       FROM scheduled_messages WHERE id = $1`,
      [message.id],
    );
    expect(rows).toEqual([
      {
        app_id: message.appId,
        openid: message.openid,
        channel: 'custom',
        payload: aTextMessage('the payload'),
        due_at: new Date('2030-01-02T03:04:05.678Z'),
        idempotency_key: 'idem-1',
        request_hash: 'hash-1',
        cancel_key: 'key-1',
        sequence_id: message.step!.sequenceId,
        enrollment_id: message.step!.enrollmentId,
        step_index: 7,
        fallback: aTemplateMessage('the fallback'),
        max_lateness_ms: 4321,
        request_id: 'req-1',
        status: 'queued',
        frequency_capped: true,
      },
    ]);
  });

  it('appends one outbox entry naming the rows it created, in the same statement, and none when it created none', async () => {
    const messages = [aNewMessage(), aNewMessage()];

    const { created, outboxId } = await insertMessages(db.pool, messages, TEST_HORIZON_MS);

    const { rows } = await db.pool.query<{ message_ids: string[] }>(
      'SELECT message_ids FROM wake_up_outbox WHERE id = $1',
      [outboxId],
    );
    expect(rows.map((r) => [...r.message_ids].sort())).toEqual([created.map((m) => m.id).sort()]);
    expect((await insertMessages(db.pool, [], TEST_HORIZON_MS)).outboxId).toBeNull();
  });

  it('returns a message whose idempotency key exists already as existing, and inserts nothing for it', async () => {
    const first = aNewMessage({ idempotencyKey: `idem-${randomUUID()}` });
    await insertMessages(db.pool, [first], TEST_HORIZON_MS);

    const again = { ...first, id: newMessageId(new Date()) };
    const { created, existing } = await insertMessages(db.pool, [again], TEST_HORIZON_MS);

    expect(created).toEqual([]);
    expect(existing.map((m) => m.id)).toEqual([first.id]);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM scheduled_messages WHERE id = $1', [
      again.id,
    ]);
    expect(rows[0].n).toBe(0);
  });
});

describe('findMessage', () => {
  it('reads an open message that a ledger row covers as cancelled, and leaves the row itself open', async () => {
    const message = aNewMessage({ cancelKey: `key-${randomUUID()}` });
    await insertMessages(db.pool, [message], TEST_HORIZON_MS);
    await appendCancellation(db.pool, {
      appId: APP_ID,
      scope: 'cancel_key',
      target: message.cancelKey!,
      reason: 'test',
      actor: 'test',
    });

    const found = await findMessage(db.pool, message.id);

    expect(found).toMatchObject({ id: message.id, status: 'cancelled', cancelKey: message.cancelKey });
    const { rows } = await db.pool.query('SELECT status FROM scheduled_messages WHERE id = $1', [message.id]);
    expect(rows[0].status).toBe('queued');
  });

  it('reads a message no cancellation covers with its own status, and an unknown id as null', async () => {
    const message = aNewMessage();
    await insertMessages(db.pool, [message], TEST_HORIZON_MS);

    expect(await findMessage(db.pool, message.id)).toMatchObject({ id: message.id, status: 'queued' });
    expect(await findMessage(db.pool, randomUUID())).toBeNull();
  });
});
