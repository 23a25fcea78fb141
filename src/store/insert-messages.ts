import pg from 'pg';
import type { Pool, PoolClient } from '../db/pool';
import { preparedStatement } from '../db/prepared';
import { MESSAGE_STATUS } from './message-status';
import { MESSAGE_COLUMNS, type Message, type MessageRow, type NewMessage, toMessage } from './message-store';

/**
 * A new message as a row of the insert, by column. The statement takes its rows as one JSON array of
 * these (a payload stays an object in it): one JSON.stringify, where an array parameter per column made
 * `pg` escape every element in JavaScript, a payload's quotes included.
 */
function insertRow(m: NewMessage) {
  return {
    id: m.id,
    app_id: m.appId,
    openid: m.openid,
    channel: m.channel,
    payload: m.payload,
    due_at: m.dueAt,
    idempotency_key: m.idempotencyKey,
    request_hash: m.requestHash,
    cancel_key: m.cancelKey,
    sequence_id: m.step?.sequenceId ?? null,
    enrollment_id: m.step?.enrollmentId ?? null,
    step_index: m.step?.index ?? null,
    variant: m.step?.variant ?? null,
    fallback: m.fallback ?? null,
    fallback_channel: m.fallbackChannel ?? 'template',
    max_lateness_ms: m.maxLatenessMs ?? null,
    request_id: m.requestId ?? null,
    frequency_capped: m.frequencyCapped ?? false,
  };
}

/** The SQL type of each column of insertRow (the compiler holds the two to the same columns). */
const COLUMN_TYPES: { readonly [column in keyof ReturnType<typeof insertRow>]: string } = {
  id: 'uuid',
  app_id: 'text',
  openid: 'text',
  channel: 'text',
  payload: 'jsonb',
  due_at: 'timestamptz',
  idempotency_key: 'text',
  request_hash: 'text',
  cancel_key: 'text',
  sequence_id: 'uuid',
  enrollment_id: 'uuid',
  step_index: 'int',
  variant: 'text',
  fallback: 'jsonb',
  fallback_channel: 'text',
  max_lateness_ms: 'int',
  request_id: 'text',
  frequency_capped: 'bool',
};

/**
 * One statement: the idempotency keys first (a repeated key inserts nothing; a concurrent insert of the
 * same key waits on the key's index, then does nothing), then the rows without a key or whose key was new,
 * inserted `queued`, and one outbox entry naming those due within the publishing horizon (none when there
 * are none), so that rows and the wake-ups they are owed commit together. A row due beyond the horizon
 * ($2 ms ahead) is marked `awaiting_pump` and goes to the later partition (due_slot infinity): the horizon
 * pump owes it its wake-up and its day. Any other row goes to its day, the time its id carries. Returns
 * the created rows' ids, where each went, and the statement's time (every row's created_at and
 * updated_at), as text: one time, parsed once.
 */
const COLUMN_LIST = Object.keys(COLUMN_TYPES).join(', ');
const INSERT_SQL = `WITH p AS MATERIALIZED (
  SELECT *, COALESCE(p.due_at > now() + $2::float8 * interval '1 millisecond', false) AS far
    FROM json_to_recordset($1::json)
      AS p(${Object.entries(COLUMN_TYPES)
        .map(([column, type]) => `${column} ${type}`)
        .join(', ')})
), keyed AS (
  INSERT INTO message_idempotency_keys (app_id, idempotency_key, message_id)
  SELECT app_id, idempotency_key, id FROM p WHERE idempotency_key IS NOT NULL
  ON CONFLICT DO NOTHING
  RETURNING message_id
), inserted AS (
  INSERT INTO scheduled_messages (${COLUMN_LIST}, status, awaiting_pump, due_slot)
  SELECT ${COLUMN_LIST}, '${MESSAGE_STATUS.queued}', far, CASE WHEN far THEN 'infinity' ELSE message_slot(id) END
    FROM p
   WHERE p.idempotency_key IS NULL OR p.id IN (SELECT message_id FROM keyed)
  RETURNING id, awaiting_pump
), outbox AS (
  INSERT INTO wake_up_outbox (message_ids)
  SELECT array_agg(id) FROM inserted WHERE NOT awaiting_pump HAVING count(*) > 0
  RETURNING id
)
SELECT inserted.*, (SELECT id FROM outbox) AS outbox_id, now()::text AS created_at FROM inserted`;
const insertStatement = preparedStatement('insert_messages', INSERT_SQL);
const parseTime = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

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
function createdMessage(m: NewMessage, createdAt: Date): Message {
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
    createdAt,
    updatedAt: createdAt,
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
    awaiting_pump: boolean;
    outbox_id: number | null;
    created_at: string;
  }>(insertStatement([JSON.stringify(messages.map(insertRow)), horizonMs]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const createdAt = rows.length > 0 ? parseTime(rows[0].created_at) : new Date();
  const created = messages.flatMap((m) => (byId.has(m.id) ? [createdMessage(m, createdAt)] : []));
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
