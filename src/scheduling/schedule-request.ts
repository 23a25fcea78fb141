import { createHash } from 'node:crypto';
import { newMessageId } from '../store/message-id';
import { ValidationError } from '../errors';
import { isJsonObject, messageRequestSchema, quickMessageRequest } from '../contract';
import { type IssueDetail, parseInput } from '../validation';
import { parseChannelMessage, TEXT_MAX_BYTES } from '../wechat/message-schema';
import type { NewMessage } from '../store/message-store';

/**
 * A customer-service text message, `{ msgtype: 'text', text: { content } }` and nothing else, as
 * `parseChannelMessage` returns it, checked without zod; null for any other message, valid or not (zod
 * parses those, and words the error). A unit test holds it to zod's answers on generated messages.
 */
export function quickTextMessage(
  channel: string,
  message: Record<string, unknown>,
): Record<string, unknown> | null {
  if (channel !== 'custom' || message.msgtype !== 'text' || !isJsonObject(message.text)) return null;
  for (const key in message) if (key !== 'msgtype' && key !== 'text') return null;
  const text = message.text;
  for (const key in text) if (key !== 'content') return null;
  const { content } = text;
  if (typeof content !== 'string' || content.length === 0) return null;
  if (Buffer.byteLength(content, 'utf8') > TEXT_MAX_BYTES) return null;
  return { msgtype: 'text', text: { content } };
}

export interface ScheduleContext {
  /** Configured accounts. */
  readonly appIds: { has(appId: string): boolean };
  readonly maxAheadMs: number;
  readonly now: Date;
}

/**
 * Turns one create-message request body into a row to insert, or throws a ValidationError listing every
 * problem. A `sendAt` in the past means "now"; one beyond the schedule horizon is refused. Waits longer
 * than the delay transport's own maximum are fine: they are chained (the wake-up arrives early and is
 * re-delayed for the remainder).
 */
export function parseScheduleRequest(input: unknown, ctx: ScheduleContext): NewMessage {
  const r = quickMessageRequest(input) ?? parseInput(messageRequestSchema, input, 'invalid message request');
  const details: IssueDetail[] = [];
  if (!ctx.appIds.has(r.appId))
    details.push({ path: 'appId', message: `no account ${r.appId} is configured` });

  let payload: Record<string, unknown> = r.message;
  try {
    payload = quickTextMessage(r.channel, r.message) ?? parseChannelMessage(r.channel, r.message);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    details.push(
      ...((err.details as IssueDetail[] | undefined) ?? [{ path: 'message', message: err.message }]),
    );
  }

  const now = ctx.now.getTime();
  const requested = r.sendAt !== undefined ? Date.parse(r.sendAt) : now + (r.delayMs ?? 0);
  if (requested - now > ctx.maxAheadMs) {
    details.push({
      path: r.sendAt !== undefined ? 'sendAt' : 'delayMs',
      message: `is more than ${Math.round(ctx.maxAheadMs / 86_400_000)} days ahead`,
    });
  }
  if (details.length > 0) throw new ValidationError('invalid message request', details);

  const dueAt = new Date(Math.max(requested, now));
  return {
    id: newMessageId(dueAt),
    appId: r.appId,
    openid: r.openid,
    channel: r.channel,
    payload,
    dueAt,
    idempotencyKey: r.idempotencyKey ?? null,
    cancelKey: r.cancelKey ?? null,
    maxLatenessMs: r.maxLatenessMs ?? null,
    frequencyCapped: r.frequencyCapped ?? false,
    requestHash: r.idempotencyKey
      ? createHash('sha256')
          .update(
            JSON.stringify([
              r.appId,
              r.openid,
              r.channel,
              payload,
              r.sendAt,
              r.delayMs,
              r.cancelKey,
              r.maxLatenessMs,
              // Only when set: the hashes of requests from before the option stay as they were.
              ...(r.frequencyCapped ? [true] : []),
            ]),
          )
          .digest('base64url')
      : null,
  };
}
