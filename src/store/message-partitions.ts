import type { QueryConfig } from 'pg';
import type { Pool, PoolClient } from '../db/pool';
import { preparedStatement } from '../db/prepared';
import { messageIdTime } from './message-id';
import { FINAL_STATUSES, MESSAGE_STATUS, sqlList } from './message-status';

/**
 * scheduled_messages and delivery_attempts are partitioned by `due_slot` (migration 0029): the time the
 * message's id carries (src/store/message-id.ts), in partitions of MESSAGE_PARTITION (a day); `infinity`
 * for a row awaiting the horizon pump (scheduled_messages_later), `-infinity` for the rows from before
 * partitioning (scheduled_messages_legacy).
 */

/**
 * Where rows with these ids are: the range of their ids' times (`from`–`to`; `to` is `infinity` when a
 * row may still await the pump — every id given to the API may; one a wake-up names has left it), and
 * whether one is an id from before partitioning (random, in the legacy partition). Null ends: none.
 */
export interface PartitionSlots {
  readonly from: string | null;
  readonly to: string | null;
  readonly legacy: boolean;
}

/** The PartitionSlots of `ids`, computed here and passed as parameters (byIdStatement). */
export function partitionSlotsOf(ids: readonly string[], opts: { awaitingPump: boolean }): PartitionSlots {
  const times = ids.flatMap((id) => messageIdTime(id)?.getTime() ?? []);
  const iso = (ms: number) => new Date(ms).toISOString();
  const from = times.length > 0 ? iso(times.reduce((a, b) => Math.min(a, b))) : null;
  const to = times.length > 0 ? iso(times.reduce((a, b) => Math.max(a, b))) : null;
  return {
    from: from ?? (opts.awaitingPump ? 'infinity' : null),
    to: opts.awaitingPump ? 'infinity' : to,
    legacy: times.length < ids.length,
  };
}

const FROM = '/* partitions from */';
const TO = '/* partitions to */';
const LEGACY_SLOT = '/* legacy partition */';

/** SQL, in the text of a byIdStatement: `alias`'s row is in the partitions the statement is run with. */
export const inPartitionsOf = (alias: string): string =>
  `(${alias}.due_slot BETWEEN ${FROM} AND ${TO} OR ${alias}.due_slot = ${LEGACY_SLOT})`;

/**
 * A statement naming messages by id, `inPartitionsOf` in its text, run with its values and the ids'
 * PartitionSlots, which become three parameters after its own. It is a prepared statement
 * (src/db/prepared.ts): Postgres parses it once per connection and keeps a generic plan, which prunes to
 * those partitions when it runs (runtime pruning needs scalar parameters: `due_slot = ANY ($n)` of one
 * array parameter would read every partition under a generic plan). A range rather than a list of the ids'
 * times: the ids of a batch falling due over a second carry as many times, and a list of them beside the
 * ids made the primary key's index probe every (id, time) pair — 10,000 probes for 100 messages.
 */
export function byIdStatement(
  name: string,
  text: string,
): (values: readonly unknown[], slots: PartitionSlots) => QueryConfig {
  let statement: ((values: unknown[]) => QueryConfig) | undefined;
  let own = 0;
  return (values, { from, to, legacy }) => {
    if (!statement) {
      own = values.length;
      const param = (n: number) => `$${own + n}::timestamptz`;
      const sql = text.replaceAll(FROM, param(1)).replaceAll(TO, param(2)).replaceAll(LEGACY_SLOT, param(3));
      statement = preparedStatement(name, sql);
    } else if (values.length !== own) {
      // The slots' parameters were numbered after the first call's values: another count would misplace them.
      throw new Error(
        `statement ${name} takes ${own} values before its partitions' slots, not ${values.length}`,
      );
    }
    return statement([...values, from, to, legacy ? '-infinity' : null]);
  };
}

/**
 * The due slots a process keeps a partition ready for: from one partition back (a clock a little behind
 * the database's) to two beyond the publishing horizon, the furthest a new id in its day can carry.
 */
export function slotsAhead(nowMs: number, horizonMs: number, widthMs: number): Date[] {
  const slots: Date[] = [];
  for (let t = nowMs - widthMs; t <= nowMs + horizonMs + 2 * widthMs; t += widthMs) slots.push(new Date(t));
  return slots;
}

/**
 * Creates the partitions (of both tables) that hold `slots`, `widthMs` wide, where none does yet
 * (create_message_partition). Returns how many it created.
 */
export async function ensureMessagePartitions(
  db: Pool | PoolClient,
  slots: readonly Date[],
  widthMs: number,
): Promise<number> {
  if (slots.length === 0) return 0;
  const { rows } = await db.query<{ created: number }>(
    `SELECT count(*) FILTER (WHERE create_message_partition(s, $2 * interval '1 millisecond'))::int AS created
     FROM unnest($1::timestamptz[]) AS s`,
    [slots.map((s) => s.toISOString()), widthMs],
  );
  return rows[0].created;
}

/** A partition retention may drop: a day whose slots are past, or the legacy partition. */
interface Droppable {
  readonly messages: string;
  readonly attempts: string;
  /** Its bound, to attach it again (`FOR VALUES FROM (…) TO (…)`). */
  readonly bound: string;
  /** The ids its slots span (null: the legacy partition's random ids). */
  readonly ids: { from: string; to: string } | null;
}

/** The smallest id of the millisecond `ms` (newMessageId's layout): a bound of a day's ids. */
const firstIdAt = (ms: number) => {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-0000-0000-000000000000`;
};

const LEGACY: Droppable = {
  messages: 'scheduled_messages_legacy',
  attempts: 'delivery_attempts_legacy',
  bound: `FOR VALUES FROM (MINVALUE) TO ('1970-01-01 00:00:00+00')`,
  ids: null,
};

/**
 * The day partitions whose slots ended at least one partition's width ago, oldest first, and the legacy
 * partition while it exists. The newest past one stays: the partition keeper keeps a partition one width
 * back (slotsAhead, for a clock a little behind the database's), and dropping it would have the keeper
 * create it again at its next pass, all day long, and collide with a drop in progress.
 */
async function pastPartitions(db: PoolClient): Promise<Droppable[]> {
  const { rows } = await db.query<{ name: string; from_ms: string; to_ms: string; legacy: boolean }>(
    `SELECT name, (extract(epoch FROM from_slot) * 1000)::bigint::text AS from_ms,
            (extract(epoch FROM to_slot) * 1000)::bigint::text AS to_ms,
            false AS legacy
       FROM message_partitions() WHERE to_slot + (to_slot - from_slot) <= now()
     UNION ALL
     SELECT 'legacy', '0', '0', true WHERE EXISTS (
       SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass('scheduled_messages_legacy'))
     ORDER BY legacy DESC, from_ms`,
  );
  return rows.map((r) => {
    if (r.legacy) return LEGACY;
    const from = Number(r.from_ms);
    const to = Number(r.to_ms);
    return {
      messages: r.name,
      attempts: r.name.replace(/^scheduled_messages_/, 'delivery_attempts_'),
      bound: `FOR VALUES FROM ('${new Date(from).toISOString()}') TO ('${new Date(to).toISOString()}')`,
      ids: { from: firstIdAt(from), to: firstIdAt(to) },
    };
  });
}

/**
 * Whether every message of partition `p` finished more than `olderThanMs` ago: none open, none finished
 * since. One index probe each (scheduled_messages_queued_due, _open, _finished).
 */
async function allFinished(db: PoolClient, p: Droppable, olderThanMs: number): Promise<boolean> {
  const { rows } = await db.query<{ done: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM ${p.messages} WHERE status = '${MESSAGE_STATUS.queued}')
        AND NOT EXISTS (SELECT 1 FROM ${p.messages} WHERE status = '${MESSAGE_STATUS.sending}')
        AND NOT EXISTS (SELECT 1 FROM ${p.messages}
                        WHERE status IN (${sqlList(FINAL_STATUSES)})
                          AND updated_at >= now() - $1 * interval '1 millisecond') AS done`,
    [olderThanMs],
  );
  return rows[0].done;
}

/**
 * Whether a message whose id names partition `p`'s slots still awaits the pump (it will move there): a
 * range of the later partition's primary key.
 */
async function stillAwaited(db: PoolClient, p: Droppable): Promise<boolean> {
  if (p.ids === null) return false;
  const { rows } = await db.query<{ awaited: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM scheduled_messages_later WHERE id >= $1 AND id < $2) AS awaited`,
    [p.ids.from, p.ids.to],
  );
  return rows[0].awaited;
}

/** What dropping one partition removed. */
export interface DroppedPartition {
  readonly name: string;
  readonly messages: number;
  readonly attempts: number;
}

/**
 * Drops partition `p` of both tables if all its messages finished more than `olderThanMs` ago: detached
 * CONCURRENTLY (no lock on the partitioned tables that would stop reads or writes), checked again once
 * nothing can write to it any more — a row a replay moved back to `queued` between the check and the
 * detach puts it back — its messages' idempotency keys deleted, then dropped. Null when it is kept.
 * `client` is not in a transaction (DETACH CONCURRENTLY needs its own).
 */
export async function dropIfFinished(
  client: PoolClient,
  p: Droppable,
  olderThanMs: number,
): Promise<DroppedPartition | null> {
  if (!(await allFinished(client, p, olderThanMs)) || (await stillAwaited(client, p))) return null;
  await client.query(`ALTER TABLE scheduled_messages DETACH PARTITION ${p.messages} CONCURRENTLY`);
  await client.query(`ALTER TABLE delivery_attempts DETACH PARTITION ${p.attempts} CONCURRENTLY`);
  if (!(await allFinished(client, p, olderThanMs))) {
    await client.query(`ALTER TABLE scheduled_messages ATTACH PARTITION ${p.messages} ${p.bound}`);
    await client.query(`ALTER TABLE delivery_attempts ATTACH PARTITION ${p.attempts} ${p.bound}`);
    return null;
  }
  const { rows } = await client.query<{ messages: number; attempts: number }>(
    `SELECT (SELECT count(*) FROM ${p.messages})::int AS messages,
            (SELECT count(*) FROM ${p.attempts})::int AS attempts`,
  );
  await client.query(
    `DELETE FROM message_idempotency_keys
     WHERE message_id IN (SELECT id FROM ${p.messages} WHERE idempotency_key IS NOT NULL)`,
  );
  await client.query(`DROP TABLE ${p.messages}, ${p.attempts}`);
  return { name: p.messages, ...rows[0] };
}

/**
 * Finishes what a retention run cut short: a detach left pending (the process died between its two
 * transactions) is finalized; a partition detached but not dropped is attached again, for the run to
 * check it afresh.
 */
export async function recoverInterruptedDrops(client: PoolClient): Promise<void> {
  const pending = await client.query<{ parent: string; name: string }>(
    `SELECT i.inhparent::regclass::text AS parent, i.inhrelid::regclass::text AS name
       FROM pg_inherits i
      WHERE i.inhdetachpending
        AND i.inhparent IN ('scheduled_messages'::regclass, 'delivery_attempts'::regclass)`,
  );
  for (const r of pending.rows) {
    await client.query(`ALTER TABLE ${r.parent} DETACH PARTITION ${r.name} FINALIZE`);
  }
  // Detached tables still carry their slot check: it gives the bound to attach them again with.
  const orphans = await client.query<{ parent: string; name: string; bound: string }>(
    `SELECT CASE WHEN c.relname LIKE 'scheduled\\_messages\\_%' THEN 'scheduled_messages'
                 ELSE 'delivery_attempts' END AS parent,
            c.relname::text AS name,
            CASE WHEN k.conname = 'legacy_slot' THEN $1
                 ELSE format('FOR VALUES FROM (%L) TO (%L)', b[1], b[2]) END AS bound
       FROM pg_class c
       JOIN pg_constraint k ON k.conrelid = c.oid AND k.conname IN ('slot', 'legacy_slot')
       LEFT JOIN LATERAL regexp_match(pg_get_constraintdef(k.oid), '''([^'']+)''.*''([^'']+)''') AS b ON true
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
        AND (c.relname LIKE 'scheduled\\_messages\\_%' OR c.relname LIKE 'delivery\\_attempts\\_%')`,
    [LEGACY.bound],
  );
  for (const o of orphans.rows) {
    await client.query(`ALTER TABLE ${o.parent} ATTACH PARTITION ${o.name} ${o.bound}`);
  }
}

/**
 * One retention pass over the partitions: drops each past one whose messages all finished more than
 * `olderThanMs` ago, oldest first, telling `onDropped` of each as it goes; returns what it dropped. `client` holds the retention lock and is not
 * in a transaction.
 */
export async function dropFinishedPartitions(
  client: PoolClient,
  olderThanMs: number,
  opts: { stopped: () => boolean; onDropped: (dropped: DroppedPartition) => void },
): Promise<DroppedPartition[]> {
  await recoverInterruptedDrops(client);
  const dropped: DroppedPartition[] = [];
  for (const p of await pastPartitions(client)) {
    if (opts.stopped()) break;
    const done = await dropIfFinished(client, p, olderThanMs);
    if (done) {
      dropped.push(done);
      opts.onDropped(done);
    }
  }
  return dropped;
}
