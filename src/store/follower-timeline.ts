import type { Pool } from '../db/pool';
import type { FollowerState, FollowerTimeline, TimelineMessage } from '../contract';
import { ledgerStatusSql } from './ledger';

const LIMIT = 200;

// The rows as pg returns them: the answer's fields, with timestamps as Dates.
type FollowerRow = Omit<
  FollowerState,
  'subscribedAt' | 'unsubscribedAt' | 'windowOpenedAt' | 'windowExpiresAt'
> & {
  subscribedAt: Date | null;
  unsubscribedAt: Date | null;
  windowOpenedAt: Date | null;
  windowExpiresAt: Date | null;
};
interface InteractionRow {
  kind: string;
  detail: string | null;
  at: Date;
}
interface EnrollmentRow {
  id: string;
  sequenceId: string;
  sequenceName: string;
  version: number;
  enrolledAt: Date;
}
type MessageRow = Omit<TimelineMessage, 'dueAt' | 'sentAt'> & { dueAt: Date; sentAt: Date | null };

const iso = (at: Date | null): string | null => at?.toISOString() ?? null;

/** Everything stored about one follower, newest first: what the admin page's lookup shows. */
export async function followerTimeline(pool: Pool, appId: string, openid: string): Promise<FollowerTimeline> {
  const [follower, interactions, enrollments, messages] = await Promise.all([
    pool.query<FollowerRow>(
      `SELECT subscribed, subscribed_at AS "subscribedAt", unsubscribed_at AS "unsubscribedAt",
              window_kind AS "windowKind", window_opened_at AS "windowOpenedAt",
              window_expires_at AS "windowExpiresAt", window_remaining AS "windowRemaining",
              (window_expires_at > now() AND window_remaining > 0) AS "windowOpen"
       FROM followers WHERE app_id = $1 AND openid = $2`,
      [appId, openid],
    ),
    pool.query<InteractionRow>(
      `SELECT kind, detail, created_at AS "at" FROM interactions WHERE app_id = $1 AND openid = $2
       ORDER BY created_at DESC LIMIT ${LIMIT}`,
      [appId, openid],
    ),
    pool.query<EnrollmentRow>(
      `SELECT e.id, e.sequence_id AS "sequenceId", s.name AS "sequenceName", e.version, e.created_at AS "enrolledAt"
       FROM enrollments e JOIN sequences s ON s.id = e.sequence_id
       WHERE e.app_id = $1 AND e.openid = $2 ORDER BY e.created_at DESC LIMIT ${LIMIT}`,
      [appId, openid],
    ),
    pool.query<MessageRow>(
      // A message a cancellation covers reads `cancelled` before the worker reaches it.
      `SELECT id, channel, ${ledgerStatusSql('m')} AS status, status_reason AS "statusReason", due_at AS "dueAt", sent_at AS "sentAt", attempts,
              sequence_id AS "sequenceId", step_index AS "stepIndex", payload AS message
       FROM scheduled_messages m WHERE app_id = $1 AND openid = $2 ORDER BY due_at DESC LIMIT ${LIMIT}`,
      [appId, openid],
    ),
  ]);
  const f = follower.rows[0];
  return {
    appId,
    openid,
    follower: f
      ? {
          ...f,
          subscribedAt: iso(f.subscribedAt),
          unsubscribedAt: iso(f.unsubscribedAt),
          windowOpenedAt: iso(f.windowOpenedAt),
          windowExpiresAt: iso(f.windowExpiresAt),
        }
      : null,
    interactions: interactions.rows.map((r) => ({ ...r, at: r.at.toISOString() })),
    enrollments: enrollments.rows.map((r) => ({ ...r, enrolledAt: r.enrolledAt.toISOString() })),
    messages: messages.rows.map((r) => ({ ...r, dueAt: r.dueAt.toISOString(), sentAt: iso(r.sentAt) })),
  };
}
