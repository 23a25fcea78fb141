import type { Pool } from '../db/pool';

/**
 * Records a link's state by its SHA-256 (hex), good for `lifeS` seconds; forgets the expired ones.
 * -- Params: $1 state_sha256, $2 life in seconds
 */
export async function saveAuthorizationState(db: Pool, stateSha256: string, lifeS: number): Promise<void> {
  await db.query(`DELETE FROM authorization_states WHERE expires_at < now()`);
  await db.query(
    `INSERT INTO authorization_states (state_sha256, expires_at) VALUES ($1, now() + $2 * interval '1 second')`,
    [stateSha256, lifeS],
  );
}

/**
 * Takes a state for the code it came back with: true when the state is known, alive, and unused or
 * used by this same code (a reload); false otherwise, and nothing changes.
 * -- Params: $1 state_sha256, $2 auth_code_sha256
 */
export async function takeAuthorizationState(
  db: Pool,
  stateSha256: string,
  codeSha256: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE authorization_states SET auth_code_sha256 = $2
     WHERE state_sha256 = $1 AND expires_at > now()
       AND (auth_code_sha256 IS NULL OR auth_code_sha256 = $2)`,
    [stateSha256, codeSha256],
  );
  return rowCount === 1;
}
