import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { BenchMessage } from '../system';
import { createWechatSender } from './wechat-sender';

/**
 * What every peer does with a message, the same for all of them and mirroring wechat-drip's worker:
 * Postgres is the record (one `messages` table in a schema of the peer's own), the queue only says when.
 */

/** Per worker process: Postgres connections for the claim / record, keep-alive HTTP connections to WeChat. */
export const DUE_WORK_POOLS = { postgres: 10, http: 64 } as const;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** `schema` itself, once checked to be a plain lower-case SQL identifier (it is interpolated into SQL). */
export function checkedSchema(schema: string): string {
  if (!IDENTIFIER.test(schema)) throw new Error(`not a plain schema name: "${schema}"`);
  return schema;
}

/** A pg pool of `max` connections with idle-client errors (a server restart) reported, not thrown. */
export function createPgPool(databaseUrl: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 10_000 });
  pool.on('error', (err) =>
    process.stderr.write(`bench peer: idle postgres client failed: ${err.message}\n`),
  );
  return pool;
}

/** Creates `schema` and its `messages` table. */
export async function createMessagesTable(pool: pg.Pool, schema: string): Promise<void> {
  const s = checkedSchema(schema);
  await pool.query(`CREATE SCHEMA ${s}`);
  await pool.query(`
    CREATE TABLE ${s}.messages (
      id uuid PRIMARY KEY,
      openid text NOT NULL,
      tag text NOT NULL,
      cancel_key text,
      due_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'pending'
    )`);
  await pool.query(`CREATE INDEX messages_cancel_key ON ${s}.messages (cancel_key)`);
}

/** Drops `schema` and everything in it (no error when it is not there). */
export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS ${checkedSchema(schema)} CASCADE`);
}

/** Inserts the messages as 'pending' in one statement; returns their new ids, in order. */
export async function recordScheduled(
  pool: pg.Pool,
  schema: string,
  messages: readonly BenchMessage[],
): Promise<string[]> {
  const ids = messages.map(() => randomUUID());
  await pool.query(
    `INSERT INTO ${checkedSchema(schema)}.messages (id, openid, tag, cancel_key, due_at)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])`,
    [
      ids,
      messages.map((m) => m.openid),
      messages.map((m) => m.tag),
      messages.map((m) => m.cancelKey ?? null),
      messages.map((m) => new Date(m.dueAt).toISOString()),
    ],
  );
  return ids;
}

/** Cancels the messages with these ids that are still pending. */
export async function cancelByIds(pool: pg.Pool, schema: string, ids: readonly string[]): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `UPDATE ${checkedSchema(schema)}.messages SET status = 'cancelled' WHERE id = ANY($1::uuid[]) AND status = 'pending' RETURNING id`,
    [ids],
  );
  return rows.map((r) => r.id);
}

/** Cancels the pending messages scheduled with this cancel key. */
export async function cancelByKey(pool: pg.Pool, schema: string, key: string): Promise<void> {
  await pool.query(
    `UPDATE ${checkedSchema(schema)}.messages SET status = 'cancelled' WHERE cancel_key = $1 AND status = 'pending'`,
    [key],
  );
}

/** Where a worker process finds the record and WeChat. */
/** A job's data in either peer: the message's id (also the job's id). */
export interface DueJobData {
  readonly id: string;
}

export interface DueWorkOptions {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly simUrl: string;
  readonly appId: string;
  readonly secret: string;
}

/** The work one worker process does for messages that fell due. */
export interface DueWork {
  /**
   * Claims the still-pending messages among `ids` (one round-trip), sends each (concurrently) and records
   * the sent ones (one UPDATE). Cancelled or already-sent ids are skipped, so a redelivery is harmless.
   * Rejects when a send failed, after putting those messages back to 'pending', so the queue retries.
   */
  deliver(ids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

interface Claimed {
  id: string;
  openid: string;
  tag: string;
}

/** Opens the process's pg pool and WeChat sender (sizes: DUE_WORK_POOLS). */
export function createDueWork(opts: DueWorkOptions): DueWork {
  const table = `${checkedSchema(opts.schema)}.messages`;
  const pool = createPgPool(opts.databaseUrl, DUE_WORK_POOLS.postgres);
  const sender = createWechatSender({ ...opts, connections: DUE_WORK_POOLS.http });
  const claim = `UPDATE ${table} SET status = 'sending' WHERE id = ANY($1::uuid[]) AND status = 'pending' RETURNING id, openid, tag`;
  const markSent = `UPDATE ${table} SET status = 'sent' WHERE id = ANY($1::uuid[])`;
  const release = `UPDATE ${table} SET status = 'pending' WHERE id = ANY($1::uuid[]) AND status = 'sending'`;

  return {
    async deliver(ids) {
      const { rows } = await pool.query<Claimed>(claim, [ids]);
      if (rows.length === 0) return;
      const errors = await Promise.all(
        rows.map((r) =>
          sender.sendText(r.openid, r.tag).then(
            () => null,
            (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
          ),
        ),
      );
      const sent = rows.filter((_, i) => errors[i] === null).map((r) => r.id);
      const failed = rows.filter((_, i) => errors[i] !== null).map((r) => r.id);
      if (sent.length > 0) await pool.query(markSent, [sent]);
      if (failed.length === 0) return;
      await pool.query(release, [failed]);
      const first = errors.find((e) => e !== null);
      throw new Error(`${failed.length} of ${rows.length} sends failed; the first: ${first?.message}`);
    },
    async close() {
      await sender.close();
      await pool.end();
    },
  };
}
