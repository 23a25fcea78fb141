import { DELIVERY_REPORTS, type DeliveryReport } from '../store/template-reports';
import type { Push } from '../wechat/push';

/** The event WeChat pushes with a template message's delivery report (reference/wechat.md §6.1). */
export const TEMPLATE_REPORT_EVENT = 'TEMPLATESENDJOBFINISH';

/** A template message's delivery report, as read from its push. */
export interface TemplateReportRead {
  /** WeChat's msgid of the send, as its answer gave it. */
  readonly msgid: string;
  readonly report: DeliveryReport;
}

// WeChat's Status texts, with or without a space after `failed:` (its docs show `failed: system failed`).
const FAILURES: readonly (readonly [RegExp, DeliveryReport])[] = [
  [/^failed:\s*user block$/i, DELIVERY_REPORTS.failedUserBlock],
  [/^failed:\s*system failed$/i, DELIVERY_REPORTS.failedSystem],
  [/^failed:\s*freq limit$/i, DELIVERY_REPORTS.failedFreqLimit],
];

/** The report a Status stands for; null for a Status that is neither `success` nor `failed:…`. */
export function deliveryReportOf(status: string): DeliveryReport | null {
  const s = status.trim();
  if (s === 'success') return DELIVERY_REPORTS.delivered;
  if (!/^failed:/i.test(s)) return null;
  return FAILURES.find(([pattern]) => pattern.test(s))?.[1] ?? DELIVERY_REPORTS.failedOther;
}

/** The report of a `TEMPLATESENDJOBFINISH` push; null when it names no msgid or an unknown Status. */
export function readTemplateReport(push: Push): TemplateReportRead | null {
  const msgid = push.fields.MsgID ?? push.fields.MsgId;
  const report = deliveryReportOf(push.fields.Status ?? '');
  if (msgid === undefined || !/^\d{1,20}$/.test(msgid) || report === null) return null;
  return { msgid, report };
}
