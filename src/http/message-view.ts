import type { AttemptRow, Message } from '../store/message-store';
import type { DeliveryAttempt, MessageDetail, MessageView } from '../contract';

/** The public JSON of a message: no internal columns (hashes, seq). */
export function messageView(m: Message): MessageView {
  return {
    id: m.id,
    appId: m.appId,
    openid: m.openid,
    channel: m.channel,
    status: m.status,
    statusReason: m.statusReason,
    dueAt: m.dueAt.toISOString(),
    attempts: m.attempts,
    idempotencyKey: m.idempotencyKey,
    cancelKey: m.cancelKey,
    maxLatenessMs: m.maxLatenessMs,
    createdAt: m.createdAt.toISOString(),
    sentAt: m.sentAt?.toISOString() ?? null,
    message: m.payload,
    noticeResult: m.noticeResult,
    deliveryReport: m.deliveryReport,
  };
}

function attemptView(a: AttemptRow): DeliveryAttempt {
  return {
    attempt: a.attempt,
    errcode: a.errcode,
    errmsg: a.errmsg,
    durationMs: a.durationMs,
    outcome: a.outcome,
    at: a.at.toISOString(),
  };
}

/** `GET /v1/messages/:id`: the message and its delivery attempts, oldest first. */
export function messageDetailView(m: Message, attempts: readonly AttemptRow[]): MessageDetail {
  return { ...messageView(m), deliveryAttempts: attempts.map(attemptView) };
}
