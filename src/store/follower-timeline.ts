import type { Pool } from '../db/pool';
import { ledgerStatusSql } from './ledger';

/** Everything stored about one follower, newest first: what the admin page's lookup shows. */
export interface FollowerTimeline {
  readonly appId: string;
  readonly openid: string;
  readonly follower: Record<string, unknown> | null;
  readonly interactions: Record<string, unknown>[];
  readonly enrollments: Record<string, unknown>[];
  readonly messages: Record<string, unknown>[];
}

const LIMIT = 200;

export async function followerTimeline(pool: Pool, appId: string, openid: string): Promise<FollowerTimeline> {
  type Row = Record<string, unknown>;
  const [follower, interactions, enrollments, messages] = await Promise.all([
    pool.query<Row>(
      `SELECT subscribed, subscribed_at AS "subscribedAt", unsubscribed_at AS "unsubscribedAt",
              window_kind AS "windowKind", window_opened_at AS "windowOpenedAt",
              window_expires_at AS "windowExpiresAt", window_remaining AS "windowRemaining",
              (window_expires_at > now() AND window_remaining > 0) AS "windowOpen"
       FROM followers WHERE app_id = $1 AND openid = $2`,
      [appId, openid],
    ),
    pool.query<Row>(
      `SELECT kind, detail, created_at AS "at" FROM interactions WHERE app_id = $1 AND openid = $2
       ORDER BY created_at DESC LIMIT ${LIMIT}`,
      [appId, openid],
    ),
    pool.query<Row>(
      `SELECT e.id, e.sequence_id AS "sequenceId", s.name AS "sequenceName", e.version, e.created_at AS "enrolledAt"
       FROM enrollments e JOIN sequences s ON s.id = e.sequence_id
       WHERE e.app_id = $1 AND e.openid = $2 ORDER BY e.created_at DESC LIMIT ${LIMIT}`,
      [appId, openid],
    ),
    pool.query<Row>(
      // A message a cancellation covers reads `cancelled` before the worker reaches it.
      `SELECT id, channel, ${ledgerStatusSql('m')} AS status, status_reason AS "statusReason", due_at AS "dueAt", sent_at AS "sentAt", attempts,
              sequence_id AS "sequenceId", step_index AS "stepIndex", payload AS message
       FROM scheduled_messages m WHERE app_id = $1 AND openid = $2 ORDER BY due_at DESC LIMIT ${LIMIT}`,
      [appId, openid],
    ),
  ]);
  return {
    appId,
    openid,
    follower: follower.rows[0] ?? null,
    interactions: interactions.rows,
    enrollments: enrollments.rows,
    messages: messages.rows,
  };
}
