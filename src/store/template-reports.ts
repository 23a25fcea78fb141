import type { PoolClient } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';

/**
 * What a `TEMPLATESENDJOBFINISH` push reported for a sent template message; the values of the
 * `delivery_report` column's CHECK (migration 0025). The message stays `sent`: WeChat accepted it, and
 * a report comes after the send is recorded; a failed report is counted in the step's results.
 */
export const DELIVERY_REPORTS = {
  delivered: 'delivered',
  /** `failed:user block`: the follower refuses the account's template messages. */
  failedUserBlock: 'failed_user_block',
  /** `failed: system failed`: WeChat failed to deliver it. */
  failedSystem: 'failed_system',
  /** `failed:freq limit`: WeChat held it back, too many template messages to this follower. */
  failedFreqLimit: 'failed_freq_limit',
  /** Any other `failed:…` status. */
  failedOther: 'failed_other',
} as const;
export type DeliveryReport = (typeof DELIVERY_REPORTS)[keyof typeof DELIVERY_REPORTS];

/** A delivery report to record: the account, the follower, WeChat's msgid, and the report. */
export interface TemplateReport {
  readonly appId: string;
  readonly openid: string;
  readonly msgid: string;
  readonly report: DeliveryReport;
}

/**
 * Records a delivery report on the sent template message with that msgid (to that follower, of that
 * account). A repeat of the push rewrites the same value. Returns whether a message took it.
 */
export async function recordTemplateReport(db: PoolClient, r: TemplateReport): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE scheduled_messages SET delivery_report = $4, updated_at = now()
     WHERE app_id = $1 AND template_msgid = $3 AND openid = $2 AND status = '${MESSAGE_STATUS.sent}'`,
    [r.appId, r.openid, r.msgid, r.report],
  );
  return (rowCount ?? 0) > 0;
}
