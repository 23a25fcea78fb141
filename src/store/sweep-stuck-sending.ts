import type { Pool } from '../db/pool';
import { MESSAGE_STATUS, type MessageStatus } from './message-status';
import type { RelayRow } from './relay-lease';

/**
 * How long after a template row's claim it may still be sent again: WeChat sends one message per openid +
 * `client_msg_id` within 10 minutes of the first send, which comes after the claim. A minute is left for
 * the resend's wake-up to arrive.
 */
export const TEMPLATE_RESEND_WITHIN_MS = 9 * 60 * 1000;

/**
 * Rows stuck in `sending` longer than `timeoutMs` (the worker died mid-send). A template row claimed less
 * than TEMPLATE_RESEND_WITHIN_MS ago goes back to `queued` (returned, to be given a wake-up): it is sent
 * again with the same `client_msg_id`, which WeChat de-duplicates. Any other row may or may not have
 * reached WeChat, so it becomes `unknown` — or, for accounts that opted into at-least-once, `queued` again.
 */
export async function sweepStuckSending(
  pool: Pool,
  timeoutMs: number,
  atLeastOnceAppIds: readonly string[],
): Promise<{ unknown: number; requeued: RelayRow[] }> {
  const { rows } = await pool.query<{ id: string; due_at: Date; status: MessageStatus }>(
    `UPDATE scheduled_messages
     SET status = CASE
           WHEN app_id = ANY($2::text[]) THEN '${MESSAGE_STATUS.queued}'
           WHEN channel = 'template' AND claimed_at > now() - $3 * interval '1 millisecond' THEN '${MESSAGE_STATUS.queued}'
           ELSE '${MESSAGE_STATUS.unknown}' END,
         status_reason = 'sending_timeout', updated_at = now()
     WHERE status = '${MESSAGE_STATUS.sending}' AND claimed_at < now() - $1 * interval '1 millisecond'
     RETURNING id, due_at, status`,
    [timeoutMs, atLeastOnceAppIds, TEMPLATE_RESEND_WITHIN_MS],
  );
  return {
    unknown: rows.filter((r) => r.status === MESSAGE_STATUS.unknown).length,
    requeued: rows
      .filter((r) => r.status === MESSAGE_STATUS.queued)
      .map((r) => ({ id: r.id, dueAt: r.due_at })),
  };
}
