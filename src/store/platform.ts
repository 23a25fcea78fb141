import type { Pool, PoolClient } from '../db/pool';

/** The kinds of authorization event WeChat pushes to the authorization-event URL (§1.7). */
export const AUTHORIZATION_STATES = ['authorized', 'updateauthorized', 'unauthorized'] as const;
export type AuthorizationState = (typeof AUTHORIZATION_STATES)[number];

/** A component_verify_ticket as stored: sealed, with the time WeChat pushed it. */
export interface StoredTicket {
  readonly componentAppId: string;
  readonly ticketSealed: string;
  readonly pushedAt: Date;
  readonly receivedAt: Date;
}

/** The last authorization event of one account. */
export interface StoredAuthorization {
  readonly authorizerAppId: string;
  readonly componentAppId: string;
  readonly state: AuthorizationState;
  /** Sealed; null on `unauthorized`. */
  readonly authorizationCodeSealed: string | null;
  readonly authorizationCodeExpiresAt: Date | null;
  readonly preAuthCode: string | null;
  readonly eventAt: Date;
}

/**
 * Keeps `ticket` as its component's latest unless a ticket pushed later is stored already (pushes can
 * arrive out of order). Returns whether it was kept.
 */
export async function saveComponentTicket(
  db: Pool | PoolClient,
  ticket: Omit<StoredTicket, 'receivedAt'>,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO component_tickets (component_app_id, ticket_sealed, pushed_at) VALUES ($1, $2, $3)
     ON CONFLICT (component_app_id) DO UPDATE
       SET ticket_sealed = EXCLUDED.ticket_sealed, pushed_at = EXCLUDED.pushed_at, received_at = now()
       WHERE component_tickets.pushed_at <= EXCLUDED.pushed_at`,
    [ticket.componentAppId, ticket.ticketSealed, ticket.pushedAt],
  );
  return (rowCount ?? 0) > 0;
}

/** The component's latest ticket, or null when none was ever received. */
export async function findComponentTicket(
  db: Pool | PoolClient,
  componentAppId: string,
): Promise<StoredTicket | null> {
  const { rows } = await db.query<{
    component_app_id: string;
    ticket_sealed: string;
    pushed_at: Date;
    received_at: Date;
  }>(`SELECT * FROM component_tickets WHERE component_app_id = $1`, [componentAppId]);
  const r = rows[0];
  return r
    ? {
        componentAppId: r.component_app_id,
        ticketSealed: r.ticket_sealed,
        pushedAt: r.pushed_at,
        receivedAt: r.received_at,
      }
    : null;
}

/**
 * Records an account's authorization event unless a later one is recorded already; returns whether it
 * was recorded.
 */
export async function saveAuthorization(db: Pool | PoolClient, a: StoredAuthorization): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO platform_authorizations (authorizer_app_id, component_app_id, state, authorization_code_sealed,
       authorization_code_expires_at, pre_auth_code, event_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (authorizer_app_id) DO UPDATE
       SET component_app_id = EXCLUDED.component_app_id, state = EXCLUDED.state,
           authorization_code_sealed = EXCLUDED.authorization_code_sealed,
           authorization_code_expires_at = EXCLUDED.authorization_code_expires_at,
           pre_auth_code = EXCLUDED.pre_auth_code, event_at = EXCLUDED.event_at, received_at = now()
       WHERE platform_authorizations.event_at <= EXCLUDED.event_at`,
    [
      a.authorizerAppId,
      a.componentAppId,
      a.state,
      a.authorizationCodeSealed,
      a.authorizationCodeExpiresAt,
      a.preAuthCode,
      a.eventAt,
    ],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Claims a signed push by its msg_signature; false when it was taken before (a replay). Waits for a
 * concurrent claim of the same signature to commit or roll back.
 */
export async function claimComponentPush(db: PoolClient, msgSignature: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO component_push_uses (msg_signature) VALUES ($1) ON CONFLICT DO NOTHING`,
    [msgSignature],
  );
  return (rowCount ?? 0) > 0;
}

/** Forgets the pushes taken more than `olderThanS` seconds ago; returns how many. */
export async function pruneComponentPushes(db: Pool | PoolClient, olderThanS: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM component_push_uses WHERE seen_at < now() - $1 * interval '1 second'`,
    [olderThanS],
  );
  return rowCount ?? 0;
}

/**
 * Disables a platform account whose authorization was revoked, once: true when this call did it (the
 * account exists, is a platform account and was not marked already). Locks the row.
 */
export async function markAccountUnauthorized(db: PoolClient, appId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE accounts SET enabled = false, unauthorized_at = now(), updated_at = now()
     WHERE app_id = $1 AND kind = 'platform' AND unauthorized_at IS NULL`,
    [appId],
  );
  return (rowCount ?? 0) > 0;
}

/** A platform account's sealed authorizer_refresh_token; null when it has none (or is no account). */
export async function findRefreshToken(db: Pool | PoolClient, appId: string): Promise<string | null> {
  const { rows } = await db.query<{ sealed: string | null }>(
    `SELECT authorizer_refresh_token_sealed AS sealed FROM accounts WHERE app_id = $1 AND kind = 'platform'`,
    [appId],
  );
  return rows[0]?.sealed ?? null;
}

/** Stores a platform account's sealed authorizer_refresh_token; false when there is no such account. */
export async function saveRefreshToken(
  db: Pool | PoolClient,
  appId: string,
  sealed: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE accounts SET authorizer_refresh_token_sealed = $2 WHERE app_id = $1 AND kind = 'platform'`,
    [appId, sealed],
  );
  return (rowCount ?? 0) > 0;
}

/** What an authorization (`api_query_auth`) gives a platform account. */
export interface AuthorizedAccount {
  readonly appId: string;
  readonly refreshTokenSealed: string;
  /** The permission set ids granted. */
  readonly funcIds: readonly number[];
  /** Its original id (gh_…) from api_get_authorizer_info; null when WeChat did not say (the last one kept). */
  readonly originalId: string | null;
}

/**
 * Creates the platform account the authorization names (safe-mode pushes, the official window, 1000
 * sends/s), or, authorizing again, enables it with its new refresh token and permissions and clears its
 * unauthorized mark. Returns `created` or `updated`, or null when the app id is an own account (left alone).
 */
export async function upsertPlatformAccount(
  db: Pool | PoolClient,
  a: AuthorizedAccount,
): Promise<'created' | 'updated' | null> {
  const { rows } = await db.query<{ created: boolean }>(
    `INSERT INTO accounts (app_id, kind, push_mode, window_policy, send_rate_per_second,
       authorizer_refresh_token_sealed, func_info, original_id)
     VALUES ($1, 'platform', 'safe', '"official"'::jsonb, 1000, $2, $3::jsonb, $4)
     ON CONFLICT (app_id) DO UPDATE
       SET enabled = true, unauthorized_at = NULL, updated_at = now(),
           authorizer_refresh_token_sealed = EXCLUDED.authorizer_refresh_token_sealed,
           func_info = EXCLUDED.func_info,
           original_id = COALESCE(EXCLUDED.original_id, accounts.original_id)
       WHERE accounts.kind = 'platform'
     RETURNING (xmax = 0) AS created`,
    [a.appId, a.refreshTokenSealed, JSON.stringify(a.funcIds), a.originalId],
  );
  return rows[0] ? (rows[0].created ? 'created' : 'updated') : null;
}
