import type { Pool, PoolClient } from '../db/pool';

/** What exchanging an authorization code did: the account created or updated, or an own account left alone. */
export const CODE_EXCHANGE_OUTCOMES = ['created', 'updated', 'own_account'] as const;
export type CodeExchangeOutcome = (typeof CODE_EXCHANGE_OUTCOMES)[number];

/** An exchanged authorization code, known by its SHA-256 (hex), and what the exchange did. */
export interface CodeExchange {
  readonly codeSha256: string;
  readonly appId: string;
  readonly outcome: CodeExchangeOutcome;
  /** The permission set ids (func_info) the authorization granted. */
  readonly permissions: readonly number[];
}

/**
 * Makes the caller's transaction the only exchanger of the code until it ends (across processes): a
 * second comer waits here, then finds the first one's outcome.
 */
export async function lockCodeExchange(client: PoolClient, codeSha256: string): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('wechat-drip-auth-code:' || $1))`, [codeSha256]);
}

/** The exchange of the code with this SHA-256, or null when it was not exchanged (yet). */
export async function findCodeExchange(
  db: Pool | PoolClient,
  codeSha256: string,
): Promise<CodeExchange | null> {
  const { rows } = await db.query<{ app_id: string; outcome: CodeExchangeOutcome; permissions: number[] }>(
    `SELECT app_id, outcome, permissions FROM authorization_code_exchanges WHERE code_sha256 = $1`,
    [codeSha256],
  );
  const r = rows[0];
  return r ? { codeSha256, appId: r.app_id, outcome: r.outcome, permissions: r.permissions } : null;
}

/** Records an exchange, under `lockCodeExchange` of its code. */
export async function saveCodeExchange(client: PoolClient, e: CodeExchange): Promise<void> {
  await client.query(
    `INSERT INTO authorization_code_exchanges (code_sha256, app_id, outcome, permissions)
     VALUES ($1, $2, $3, $4::jsonb)`,
    [e.codeSha256, e.appId, e.outcome, JSON.stringify(e.permissions)],
  );
}

/** Forgets the exchanges made more than `olderThanS` seconds ago; returns how many. */
export async function pruneCodeExchanges(db: Pool | PoolClient, olderThanS: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM authorization_code_exchanges WHERE exchanged_at < now() - $1 * interval '1 second'`,
    [olderThanS],
  );
  return rowCount ?? 0;
}
