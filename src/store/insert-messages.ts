import type { Pool, PoolClient } from '../db/pool';
import { preparedStatement } from '../db/prepared';
import { MESSAGE_STATUS } from './message-status';
import { MESSAGE_COLUMNS, type Message, type MessageRow, type NewMessage, toMessage } from './message-store';

/**
 * The columns insertMessages writes, each with its array type and its value: one list, so that a column
 * and its parameter cannot drift apart.
 */
const INSERT_COLUMNS: readonly (readonly [
  column: string,
  arrayOf: string,
  value: (m: NewMessage) => unknown,
])[] = [
  ['id', 'uuid', (m) => m.id],
  ['app_id', 'text', (m) => m.appId],
  ['openid', 'text', (m) => m.openid],
  ['channel', 'text', (m) => m.channel],
  ['payload', 'jsonb', (m) => JSON.stringify(m.payload)],
  ['due_at', 'timestamptz', (m) => m.dueAt.toISOString()],
  ['idempotency_key', 'text', (m) => m.idempotencyKey],
  ['request_hash', 'text', (m) => m.requestHash],
  ['cancel_key', 'text', (m) => m.cancelKey],
  ['sequence_id', 'uuid', (m) => m.step?.sequenceId ?? null],
  ['enrollment_id', 'uuid', (m) => m.step?.enrollmentId ?? null],
  ['step_index', 'int', (m) => m.step?.index ?? null],
  ['variant', 'text', (m) => m.step?.variant ?? null],
  ['fallback', 'jsonb', (m) => (m.fallback ? JSON.stringify(m.fallback) : null)],
  ['fallback_channel', 'text', (m) => m.fallbackChannel ?? 'template'],
  ['max_lateness_ms', 'int', (m) => m.maxLatenessMs ?? null],
  ['request_id', 'text', (m) => m.requestId ?? null],
  ['frequency_capped', 'bool', (m) => m.frequencyCapped ?? false],
];

/**
 * One statement: the idempotency keys first (a repeated key inserts nothing; a concurrent insert of the
 * same key waits on the key's index, then does nothing), then the rows without a key or whose key was new,
 * inserted `queued`, and one outbox entry naming those due within the publishing horizon (none when there
 * are none), so that rows and the wake-ups they are owed commit together. A row due beyond the horizon
 * ($N ms ahead) is marked `awaiting_pump` and goes to the later partition (due_slot infinity): the horizon
 * pump owes it its wake-up and its day. Any other row goes to its day, the time its id carries. Returns what
 * the database added to each row.
 */
const COLUMN_LIST = INSERT_COLUMNS.map(([column]) => column).join(', ');
const HORIZON_PARAM = `$${INSERT_COLUMNS.length + 1}`;
const param = (column: string) => `$${INSERT_COLUMNS.findIndex(([c]) => c === column) + 1}`;
const INSERT_SQL = `WITH keyed AS (
  INSERT INTO message_idempotency_keys (app_id, idempotency_key, message_id)
  SELECT k.app_id, k.idempotency_key, k.id
    FROM unnest(${param('id')}::uuid[], ${param('app_id')}::text[], ${param('idempotency_key')}::text[])
      AS k(id, app_id, idempotency_key)
   WHERE k.idempotency_key IS NOT NULL
  ON CONFLICT DO NOTHING
  RETURNING message_id
), inserted AS (
  INSERT INTO scheduled_messages (${COLUMN_LIST}, status, awaiting_pump, due_slot)
  SELECT ${COLUMN_LIST}, '${MESSAGE_STATUS.queued}', far, CASE WHEN far THEN 'infinity' ELSE message_slot(id) END
    FROM (SELECT *, COALESCE(p.due_at > now() + ${HORIZON_PARAM}::float8 * interval '1 millisecond', false) AS far
            FROM unnest(${INSERT_COLUMNS.map(([, arrayOf], i) => `$${i + 1}::${arrayOf}[]`).join(', ')})
              AS p(${COLUMN_LIST})) p
   WHERE p.idempotency_key IS NULL OR p.id IN (SELECT message_id FROM keyed)
  RETURNING id, created_at, updated_at, awaiting_pump
), outbox AS (
  INSERT INTO wake_up_outbox (message_ids)
  SELECT array_agg(id) FROM inserted WHERE NOT awaiting_pump HAVING count(*) > 0
  RETURNING id
)
SELECT inserted.*, (SELECT id FROM outbox) AS outbox_id FROM inserted`;
const insertStatement = preparedStatement('insert_messages', INSERT_SQL);

export interface Inserted {
  readonly created: Message[];
  /** The created rows due within the publishing horizon: their wake-ups are owed by `outboxId`. */
  readonly toPublish: Message[];
  /** Rows whose (app_id, idempotency_key) existed already: not inserted, read back as they are. */
  readonly existing: Message[];
  /** The outbox entry owing `toPublish` their wake-ups; null when there is none to publish. */
  readonly outboxId: number | null;
}

/** A created row as the rest of the code sees it: the input, and what the database set. */
function createdMessage(m: NewMessage, row: { created_at: Date; updated_at: Date }): Message {
  return {
    id: m.id,
    appId: m.appId,
    openid: m.openid,
    channel: m.channel,
    payload: m.payload,
    dueAt: m.dueAt,
    status: MESSAGE_STATUS.queued,
    statusReason: null,
    attempts: 0,
    idempotencyKey: m.idempotencyKey,
    requestHash: m.requestHash,
    cancelKey: m.cancelKey,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sentAt: null,
    maxLatenessMs: m.maxLatenessMs ?? null,
    noticeResult: null,
    deliveryReport: null,
  };
}

/**
 * Inserts messages and the outbox entry of those due within `horizonMs` in one statement (the caller
 * publishes their wake-ups and then clears the entry). A row whose
 * (app_id, idempotency_key) exists already is not inserted; the row with that key is returned in
 * `existing` instead (the caller compares request hashes).
 */
export async function insertMessages(
  db: Pool | PoolClient,
  messages: readonly NewMessage[],
  horizonMs: number,
): Promise<Inserted> {
  if (messages.length === 0) return { created: [], toPublish: [], existing: [], outboxId: null };
  const { rows } = await db.query<{
    id: string;
    created_at: Date;
    updated_at: Date;
    awaiting_pump: boolean;
    outbox_id: number | null;
  }>(insertStatement([...INSERT_COLUMNS.map(([, , value]) => messages.map(value)), horizonMs]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const created = messages.flatMap((m) => {
    const row = byId.get(m.id);
    return row ? [createdMessage(m, row)] : [];
  });
  const toPublish = created.filter((m) => byId.get(m.id)?.awaiting_pump === false);
  const outboxId = rows[0]?.outbox_id ?? null;
  if (created.length === messages.length) return { created, toPublish, existing: [], outboxId };
  const keyed = messages.filter((m) => m.idempotencyKey !== null);
  const found = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS.map((c) => `m.${c}`).join(', ')} FROM message_idempotency_keys k
       JOIN scheduled_messages m ON m.id = k.message_id
      WHERE (k.app_id, k.idempotency_key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [keyed.map((m) => m.appId), keyed.map((m) => m.idempotencyKey)],
  );
  // A row another input of this same statement created counts as existing for the inputs that repeat its key.
  return { created, toPublish, existing: found.rows.map(toMessage), outboxId };
}
