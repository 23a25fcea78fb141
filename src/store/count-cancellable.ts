import type { PoolClient } from '../db/pool';
import { LEDGER_COVERS } from './ledger';
import { isOpenSql } from './message-status';

/** The message columns a cancellation by target matches on (`app_id`: every message of the account). */
export type CancellableBy = 'cancel_key' | 'openid' | 'app_id';

/**
 * How many open messages of the account with `column` = `value` no cancellation covers yet: what a new
 * ledger row on them would stop. Counted inside the caller's transaction, after `holdClaims`.
 */
export async function countCancellable(
  client: PoolClient,
  appId: string,
  column: CancellableBy,
  value: string,
): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM scheduled_messages m
     WHERE m.app_id = $1 AND m.${column} = $2 AND ${isOpenSql('m.status')}
       AND NOT ${LEDGER_COVERS('m')}`,
    [appId, value],
  );
  return rows[0].n;
}
