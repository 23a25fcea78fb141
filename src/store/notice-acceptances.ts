import type { PoolClient } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';

/** A follower's answer to a subscription notice's template. */
export interface NewNoticeAnswer {
  readonly appId: string;
  readonly openid: string;
  readonly templateId: string;
  readonly accept: boolean;
}

/**
 * Records answers (at most one per follower and template): an acceptance adds one send of the template
 * (one-time subscriptions: "订阅1次可下发1次"), a rejection takes every send left away. Rows in key order,
 * so two rounds never wait on each other's rows in opposite orders.
 */
export async function recordNoticeAnswers(
  db: PoolClient,
  answers: readonly NewNoticeAnswer[],
): Promise<void> {
  if (answers.length === 0) return;
  const rows = [...answers].sort((a, b) =>
    `${a.appId}\u0000${a.openid}\u0000${a.templateId}` < `${b.appId}\u0000${b.openid}\u0000${b.templateId}`
      ? -1
      : 1,
  );
  await db.query(
    `INSERT INTO notice_acceptances (app_id, openid, template_id, remaining, last_answer)
     SELECT app_id, openid, template_id, CASE WHEN accept THEN 1 ELSE 0 END,
            CASE WHEN accept THEN 'accept' ELSE 'reject' END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[]) AS a(app_id, openid, template_id, accept)
     ON CONFLICT (app_id, openid, template_id) DO UPDATE SET
       remaining = CASE WHEN EXCLUDED.last_answer = 'accept' THEN notice_acceptances.remaining + 1 ELSE 0 END,
       last_answer = EXCLUDED.last_answer, updated_at = now()`,
    [
      rows.map((r) => r.appId),
      rows.map((r) => r.openid),
      rows.map((r) => r.templateId),
      rows.map((r) => r.accept),
    ],
  );
}

/**
 * Records a `subscribe_msg_sent_event` result on the oldest sent notice of that template to the follower
 * without one (the event names no message of ours). Returns whether a message took it.
 */
export async function recordNoticeResult(
  db: PoolClient,
  r: { appId: string; openid: string; templateId: string; result: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE scheduled_messages SET notice_result = $4, updated_at = now()
     WHERE id = (SELECT id FROM scheduled_messages
                 WHERE app_id = $1 AND openid = $2 AND channel = 'notice' AND payload->>'template_id' = $3
                   AND status = '${MESSAGE_STATUS.sent}' AND notice_result IS NULL
                 ORDER BY sent_at, id LIMIT 1)`,
    [r.appId, r.openid, r.templateId, r.result],
  );
  return rowCount === 1;
}
