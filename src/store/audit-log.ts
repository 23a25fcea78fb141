import type { AuditAction, AuditActor, AuditChange, AuditEntry, AuditTarget } from '../contract';
import type { Pool, PoolClient } from '../db/pool';

/** Who is making a change, and from where: what every change through the API carries down to its store. */
export interface Actor {
  readonly actor: AuditActor;
  /** The request's source address. */
  readonly source: string;
  readonly requestId: string | null;
}

/** What WeChat does on its own: an account's admin authorizes or revokes the platform in WeChat's pages. */
export const WECHAT_ACTOR: Actor = Object.freeze({
  actor: { kind: 'wechat' as const },
  source: 'wechat',
  requestId: null,
});

/** One change, as the use case that makes it describes it: its action and details, on what. */
export type Change = AuditChange & {
  readonly target: { readonly type: AuditTarget; readonly id: string };
  readonly appId: string | null;
};

/** Writes `change` by `by` to the audit log, in the caller's transaction (the change's own). */
export async function recordChange(client: PoolClient, by: Actor, change: Change): Promise<void> {
  await client.query(
    `INSERT INTO audit_log (actor, source, request_id, action, target_type, target_id, app_id, details)
     VALUES ($1::jsonb, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
    [
      JSON.stringify(by.actor),
      by.source,
      by.requestId,
      change.action,
      change.target.type,
      change.target.id,
      change.appId,
      JSON.stringify(change.details),
    ],
  );
}

interface AuditRow {
  id: string;
  at: Date;
  actor: AuditActor;
  source: string;
  request_id: string | null;
  action: AuditAction;
  target_type: AuditTarget;
  target_id: string;
  app_id: string | null;
  details: Record<string, unknown>;
}

/** A page of the log, newest first: one account's entries or all, older than entry `before`. */
export async function listChanges(
  db: Pool | PoolClient,
  q: { appId: string | null; limit: number; before: string | null },
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const { rows } = await db.query<AuditRow>(
    `SELECT id::text, at, actor, source, request_id, action, target_type, target_id, app_id, details
       FROM audit_log
      WHERE ($1::text IS NULL OR app_id = $1) AND ($2::bigint IS NULL OR id < $2)
      -- Qualified: a bare id here is the output column, id::text, which sorts '9' before '10'.
      ORDER BY audit_log.id DESC LIMIT $3`,
    [q.appId, q.before, q.limit + 1],
  );
  const page = rows.slice(0, q.limit);
  return {
    entries: page.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      actor: r.actor,
      source: r.source,
      requestId: r.request_id,
      action: r.action,
      target: { type: r.target_type, id: r.target_id },
      appId: r.app_id,
      details: r.details,
    })),
    next: rows.length > q.limit ? page[page.length - 1].id : null,
  };
}
