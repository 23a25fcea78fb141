import type { Message } from '../store/message-store';

/** The public JSON of a message: no internal columns (hashes, seq). */
export function messageView(m: Message): Record<string, unknown> {
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
  };
}
