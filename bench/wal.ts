import pg from 'pg';

/**
 * Postgres WAL written over a stretch of a scenario, per message: what each system's writes cost the
 * database's log (and its replicas and backups). `pg_stat_wal` counts the whole cluster, so anything else
 * writing to the same Postgres at the time is counted too: on a shared machine, read it as an upper bound.
 */
export interface WalMark {
  readonly bytes: number;
}

/** The cluster's WAL bytes so far (NaN when Postgres cannot say: before version 14, or no access). */
export async function walMark(databaseUrl: string): Promise<WalMark> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ bytes: string }>(
      'SELECT wal_bytes::text AS bytes FROM pg_stat_wal',
    );
    return { bytes: Number(rows[0]?.bytes ?? NaN) };
  } catch {
    return { bytes: NaN };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** WAL bytes written between two marks, per message. */
export function walPerMessage(from: WalMark, to: WalMark, messages: number): number {
  return messages > 0 ? (to.bytes - from.bytes) / messages : NaN;
}
