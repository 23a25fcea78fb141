import type { Pool, PoolClient } from '../db/pool';
import type { AccountKind, PushMode, QuietHours, WindowPolicyInput } from '../contract';

/** An account as stored: its secrets sealed (src/accounts/secret-box.ts), never in clear. */
export interface StoredAccount {
  readonly appId: string;
  readonly name: string | null;
  readonly kind: AccountKind;
  readonly enabled: boolean;
  readonly secretSealed: string | null;
  readonly tokenSealed: string | null;
  readonly encodingAESKeySealed: string | null;
  readonly previousEncodingAESKeySealed: string | null;
  readonly pushMode: PushMode;
  /** As written: a preset name or custom rules. */
  readonly windowPolicy: WindowPolicyInput;
  readonly sendRatePerSecond: number;
  readonly atLeastOnce: boolean;
  /** At most this many capped messages per follower per day; null: no cap. */
  readonly frequencyCapPerDay: number | null;
  /** The IANA zone the admin page shows the account's times in. */
  readonly timeZone: string;
  /** The default quiet hours of its sequences (in `timeZone`); null: none. */
  readonly quietHours: QuietHours | null;
  /** When the platform's authorization was revoked (the account was then disabled); null otherwise. */
  readonly unauthorizedAt: Date | null;
  /** A platform account's permission set ids (func_info) as it last authorized; null for an own account. */
  readonly funcInfo: readonly number[] | null;
  /** A platform account's original id (gh_…), the ToUserName of its pushes; null when not known. */
  readonly originalId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What an insert writes; the times are the database's. */
export type NewStoredAccount = Omit<
  StoredAccount,
  | 'createdAt'
  | 'updatedAt'
  | 'unauthorizedAt'
  | 'funcInfo'
  | 'originalId'
  | 'frequencyCapPerDay'
  | 'quietHours'
> & { readonly frequencyCapPerDay?: number | null; readonly quietHours?: QuietHours | null };
/** The fields an update may change (the app id and the kind never change). */
export type StoredAccountChanges = Partial<Omit<NewStoredAccount, 'appId' | 'kind'>>;

interface AccountRow {
  app_id: string;
  name: string | null;
  kind: AccountKind;
  enabled: boolean;
  secret_sealed: string | null;
  token_sealed: string | null;
  encoding_aes_key_sealed: string | null;
  previous_encoding_aes_key_sealed: string | null;
  push_mode: PushMode;
  window_policy: WindowPolicyInput;
  send_rate_per_second: number;
  at_least_once: boolean;
  frequency_cap_per_day: number | null;
  time_zone: string;
  quiet_hours: QuietHours | null;
  unauthorized_at: Date | null;
  func_info: number[] | null;
  original_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Each writable field's column: the only identifiers an update interpolates. */
const COLUMN: Record<keyof StoredAccountChanges, string> = {
  name: 'name',
  enabled: 'enabled',
  secretSealed: 'secret_sealed',
  tokenSealed: 'token_sealed',
  encodingAESKeySealed: 'encoding_aes_key_sealed',
  previousEncodingAESKeySealed: 'previous_encoding_aes_key_sealed',
  pushMode: 'push_mode',
  windowPolicy: 'window_policy',
  sendRatePerSecond: 'send_rate_per_second',
  atLeastOnce: 'at_least_once',
  frequencyCapPerDay: 'frequency_cap_per_day',
  timeZone: 'time_zone',
  quietHours: 'quiet_hours',
};
/** The jsonb columns: a value is sent as JSON text (null stays SQL null: no quiet hours). */
const JSONB_FIELDS: readonly (keyof StoredAccountChanges)[] = ['windowPolicy', 'quietHours'];

const toAccount = (r: AccountRow): StoredAccount => ({
  appId: r.app_id,
  name: r.name,
  kind: r.kind,
  enabled: r.enabled,
  secretSealed: r.secret_sealed,
  tokenSealed: r.token_sealed,
  encodingAESKeySealed: r.encoding_aes_key_sealed,
  previousEncodingAESKeySealed: r.previous_encoding_aes_key_sealed,
  pushMode: r.push_mode,
  windowPolicy: r.window_policy,
  sendRatePerSecond: r.send_rate_per_second,
  atLeastOnce: r.at_least_once,
  frequencyCapPerDay: r.frequency_cap_per_day,
  timeZone: r.time_zone,
  quietHours: r.quiet_hours,
  unauthorizedAt: r.unauthorized_at,
  funcInfo: r.func_info,
  originalId: r.original_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A field's value as a parameter: a jsonb one as JSON (the window policy may be a bare string). */
const param = (field: keyof StoredAccountChanges, value: unknown): unknown =>
  JSONB_FIELDS.includes(field) && value !== null ? JSON.stringify(value) : value;

/** Inserts the account unless its app id exists; returns it, or null when it existed (nothing written). */
export async function insertAccount(
  db: Pool | PoolClient,
  a: NewStoredAccount,
): Promise<StoredAccount | null> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts (app_id, name, kind, enabled, secret_sealed, token_sealed, encoding_aes_key_sealed,
       previous_encoding_aes_key_sealed, push_mode, window_policy, send_rate_per_second, at_least_once,
       frequency_cap_per_day, time_zone, quiet_hours)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15::jsonb)
     ON CONFLICT (app_id) DO NOTHING RETURNING *`,
    [
      a.appId,
      a.name,
      a.kind,
      a.enabled,
      a.secretSealed,
      a.tokenSealed,
      a.encodingAESKeySealed,
      a.previousEncodingAESKeySealed,
      a.pushMode,
      JSON.stringify(a.windowPolicy),
      a.sendRatePerSecond,
      a.atLeastOnce,
      a.frequencyCapPerDay ?? null,
      a.timeZone,
      param('quietHours', a.quietHours ?? null),
    ],
  );
  return rows[0] ? toAccount(rows[0]) : null;
}

/** When the account `appId` was deleted, or null when it was not (or was created again since). */
export async function deletedAt(db: Pool | PoolClient, appId: string): Promise<Date | null> {
  const { rows } = await db.query<{ deleted_at: Date }>(
    `SELECT deleted_at FROM deleted_accounts WHERE app_id = $1`,
    [appId],
  );
  return rows[0]?.deleted_at ?? null;
}

/** Every account, in app id order. */
export async function listAccounts(db: Pool | PoolClient): Promise<StoredAccount[]> {
  const { rows } = await db.query<AccountRow>(`SELECT * FROM accounts ORDER BY app_id`);
  return rows.map(toAccount);
}

/** One account, or null. `lock` locks its row until the caller's transaction ends. */
export async function findAccount(
  db: Pool | PoolClient,
  appId: string,
  opts: { lock?: boolean } = {},
): Promise<StoredAccount | null> {
  const lock = opts.lock ? ' FOR UPDATE' : '';
  const { rows } = await db.query<AccountRow>(`SELECT * FROM accounts WHERE app_id = $1${lock}`, [appId]);
  return rows[0] ? toAccount(rows[0]) : null;
}

/** Changes the given fields (and `updated_at`); returns the account, or null when it does not exist. */
export async function updateAccount(
  db: Pool | PoolClient,
  appId: string,
  changes: StoredAccountChanges,
): Promise<StoredAccount | null> {
  const fields = (Object.keys(changes) as (keyof StoredAccountChanges)[]).filter(
    (f) => changes[f] !== undefined,
  );
  const sets = fields.map((f, i) => `${COLUMN[f]} = $${i + 2}${JSONB_FIELDS.includes(f) ? '::jsonb' : ''}`);
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE app_id = $1 RETURNING *`,
    [appId, ...fields.map((f) => param(f, changes[f]))],
  );
  return rows[0] ? toAccount(rows[0]) : null;
}

/** Removes the account; true when it existed. */
export async function deleteAccount(db: Pool | PoolClient, appId: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM accounts WHERE app_id = $1`, [appId]);
  return (rowCount ?? 0) > 0;
}

/**
 * Params: app ids.
 * Returns: those of them an account has.
 */
export async function existingAppIds(db: Pool | PoolClient, appIds: readonly string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ app_id: string }>('SELECT app_id FROM accounts WHERE app_id = ANY($1)', [
    appIds,
  ]);
  return new Set(rows.map((r) => r.app_id));
}
