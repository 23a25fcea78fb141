import type { Push } from '../wechat/push';

/** A follower's answer to one template in a `subscribe_msg_popup_event` / `subscribe_msg_change_event`. */
export interface NoticeAnswer {
  readonly templateId: string;
  readonly accept: boolean;
}

/** One entry of a `subscribe_msg_sent_event`: a notice's asynchronous delivery result. */
export interface NoticeResult {
  readonly templateId: string;
  /** `success`, or `failed:<ErrorCode>`. */
  readonly result: string;
}

/** The subscription-notice events (reference/wechat-platform.md §2.3). */
export const NOTICE_EVENTS = {
  popup: 'subscribe_msg_popup_event',
  change: 'subscribe_msg_change_event',
  sent: 'subscribe_msg_sent_event',
} as const;

// `<Wrapper>.List.<i>.<Field>` in XML, `List.<i>.<Field>` in JSON; no `.<i>` when the list has one entry.
// The change event comes wrapped in either element (the service-account doc's example is a known slip).
const LIST_FIELD =
  /^(?:(?:SubscribeMsgPopupEvent|SubscribeMsgChangeEvent|SubscribeMsgSentEvent)\.)?List(?:\.(\d{1,3}))?\.(\w+)$/;

/** The entries of a notice event's `List`, in order, each as its fields. */
function listEntries(fields: Readonly<Record<string, string>>): Record<string, string>[] {
  const entries = new Map<number, Record<string, string>>();
  for (const [key, value] of Object.entries(fields)) {
    const match = LIST_FIELD.exec(key);
    if (!match) continue;
    const index = Number(match[1] ?? 0);
    const entry = entries.get(index) ?? {};
    entry[match[2]] = value;
    entries.set(index, entry);
  }
  return [...entries.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
}

/**
 * The answers of a popup or change event, one per template (a template listed twice: its last answer).
 * Statuses other than `accept` and `reject` are left out, as are entries without a TemplateId.
 */
export function readNoticeAnswers(push: Push): NoticeAnswer[] {
  const answers = new Map<string, boolean>();
  for (const entry of listEntries(push.fields)) {
    const status = entry.SubscribeStatusString;
    if (entry.TemplateId && (status === 'accept' || status === 'reject'))
      answers.set(entry.TemplateId, status === 'accept');
  }
  return [...answers].map(([templateId, accept]) => ({ templateId, accept }));
}

/** The delivery results of a sent event; an entry without a TemplateId or an ErrorCode is left out. */
export function readNoticeResults(push: Push): NoticeResult[] {
  return listEntries(push.fields).flatMap((entry) =>
    entry.TemplateId && entry.ErrorCode
      ? [
          {
            templateId: entry.TemplateId,
            result: entry.ErrorCode === '0' ? 'success' : `failed:${entry.ErrorCode}`,
          },
        ]
      : [],
  );
}
