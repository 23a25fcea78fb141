import type { Pool, PoolClient } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';
import { COLUMNS, type Message, type MessageRow, type NewMessage, toMessage } from './message-store';

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
 * One statement: the rows, inserted `queued` (a repeated idempotency key is skipped), and one outbox entry
 * naming the rows it inserted due within the publishing horizon (none when there are none), so that rows
 * and the wake-ups they are owed commit together. A row due beyond the horizon ($N ms ahead; null: no
 * horizon) is marked `awaiting_pump` instead: the horizon pump owes it its wake-up. Returns what the
 * database added to each row.
 */
const HORIZON_PARAM = `$${INSERT_COLUMNS.length + 1}`;
const INSERT_SQL = `WITH inserted AS (
  INSERT INTO scheduled_messages (${INSERT_COLUMNS.map(([column]) => column).join(', ')}, status, awaiting_pump)
  SELECT *, '${MESSAGE_STATUS.queued}',
         COALESCE(p.due_at > now() + ${HORIZON_PARAM}::float8 * interval '1 millisecond', false)
    FROM unnest(${INSERT_COLUMNS.map(([, arrayOf], i) => `$${i + 1}::${arrayOf}[]`).join(', ')})
      AS p(${INSERT_COLUMNS.map(([column]) => column).join(', ')})
  ON CONFLICT (app_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING id, created_at, updated_at, awaiting_pump
), outbox AS (
  INSERT INTO wake_up_outbox (message_ids)
  SELECT array_agg(id) FROM inserted WHERE NOT awaiting_pump HAVING count(*) > 0
  RETURNING id
)
SELECT inserted.*, (SELECT id FROM outbox) AS outbox_id FROM inserted`;

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
 * publishes their wake-ups and then clears the entry); `horizonMs` null publishes every one. A row whose
 * (app_id, idempotency_key) exists already is not inserted; the row with that key is returned in
 * `existing` instead (the caller compares request hashes).
 */
export async function insertMessages(
  db: Pool | PoolClient,
  messages: readonly NewMessage[],
  horizonMs: number | null,
): Promise<Inserted> {
  if (messages.length === 0) return { created: [], toPublish: [], existing: [], outboxId: null };
  const { rows } = await db.query<{
    id: string;
    created_at: Date;
    updated_at: Date;
    awaiting_pump: boolean;
    outbox_id: number | null;
  }>(INSERT_SQL, [...INSERT_COLUMNS.map(([, , value]) => messages.map(value)), horizonMs]);
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
    `SELECT ${COLUMNS} FROM scheduled_messages
     WHERE (app_id, idempotency_key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [keyed.map((m) => m.appId), keyed.map((m) => m.idempotencyKey)],
  );
  // A row another input of this same statement created counts as existing for the inputs that repeat its key.
  return { created, toPublish, existing: found.rows.map(toMessage), outboxId };
}
