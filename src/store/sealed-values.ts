import type { Pool, PoolClient } from '../db/pool';

/**
 * Every column that holds a value sealed by src/accounts/secret-box.ts, with the column naming its row
 * (an app id). A migration that adds a sealed column adds it here, or key rotation and the start-up check
 * miss it (test/integration/store/sealed-values.test.ts compares this list with the schema).
 */
export const SEALED_COLUMNS = {
  accountSecret: { table: 'accounts', key: 'app_id', column: 'secret_sealed' },
  accountToken: { table: 'accounts', key: 'app_id', column: 'token_sealed' },
  accountEncodingAESKey: { table: 'accounts', key: 'app_id', column: 'encoding_aes_key_sealed' },
  accountPreviousEncodingAESKey: {
    table: 'accounts',
    key: 'app_id',
    column: 'previous_encoding_aes_key_sealed',
  },
  authorizerRefreshToken: { table: 'accounts', key: 'app_id', column: 'authorizer_refresh_token_sealed' },
  componentTicket: { table: 'component_tickets', key: 'component_app_id', column: 'ticket_sealed' },
  authorizationCode: {
    table: 'platform_authorizations',
    key: 'authorizer_app_id',
    column: 'authorization_code_sealed',
  },
  accessToken: { table: 'access_tokens', key: 'app_id', column: 'token' },
} as const;
export type SealedColumn = keyof typeof SEALED_COLUMNS;

/** One stored sealed value and the key of its row. */
export interface SealedValue {
  readonly rowKey: string;
  readonly sealed: string;
}

/**
 * Every sealed value of the column, in row-key order: one statement, whatever the number of rows.
 * -- Params: none (the column is one of SEALED_COLUMNS, a constant). Returns: (row key, sealed text).
 */
export async function listSealed(db: Pool | PoolClient, column: SealedColumn): Promise<SealedValue[]> {
  const c = SEALED_COLUMNS[column];
  const { rows } = await db.query<{ row_key: string; sealed: string }>(
    `SELECT ${c.key} AS row_key, ${c.column} AS sealed FROM ${c.table}
     WHERE ${c.column} IS NOT NULL ORDER BY ${c.key}`,
  );
  return rows.map((r) => ({ rowKey: r.row_key, sealed: r.sealed }));
}

/**
 * Replaces one sealed value if it is still `expected` (compare-and-swap: a value written meanwhile, by a
 * PATCH or a newer push, is left as it is). Returns whether it was replaced.
 * -- Params: $1 row key, $2 the value read, $3 the value to store.
 */
export async function replaceSealed(
  db: Pool | PoolClient,
  column: SealedColumn,
  value: SealedValue,
  sealed: string,
): Promise<boolean> {
  const c = SEALED_COLUMNS[column];
  const { rowCount } = await db.query(
    `UPDATE ${c.table} SET ${c.column} = $3 WHERE ${c.key} = $1 AND ${c.column} = $2`,
    [value.rowKey, value.sealed, sealed],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Every column of the schema that a sealed value may sit in by its name (`…_sealed`), plus the access
 * tokens': what SEALED_COLUMNS must cover.
 */
export async function listSealedColumnsInSchema(db: Pool | PoolClient): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_name LIKE '%\\_sealed'
     ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}
