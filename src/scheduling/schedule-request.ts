import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '../errors';
import { type IssueDetail, readableIssue, zodIssueDetails } from '../validation';
import { parseCustomMessage, parseTemplateMessage } from '../wechat/message-schema';
import { ISO_WITH_ZONE, isCalendarTime } from './iso-time';
import { CHANNELS } from '../store/message-status';
import type { NewMessage } from '../store/message-store';

/** How late a message is still worth sending, in ms: a second to 30 days (messages and sequence steps). */
export const maxLatenessMsSchema = z
  .number()
  .int()
  .min(1000)
  .max(30 * 86_400_000);

const requestSchema = z
  .object({
    appId: z.string().min(1),
    openid: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be 1–128 letters, digits, _ or -'),
    channel: z.enum(CHANNELS).default('custom'),
    message: z.record(z.string(), z.unknown()),
    sendAt: z
      .string()
      .regex(ISO_WITH_ZONE, {
        message: 'must be an ISO 8601 time with a zone, e.g. 2026-05-01T09:30:00+08:00',
        abort: true,
      })
      .refine(isCalendarTime, 'is not a real date and time (check the day of the month and the hour)')
      .optional(),
    delayMs: z.number().int().min(0).optional(),
    idempotencyKey: z.string().min(1).max(200).optional(),
    cancelKey: z.string().min(1).max(200).optional(),
    maxLatenessMs: maxLatenessMsSchema.optional(),
  })
  .strict()
  .refine((r) => r.sendAt === undefined || r.delayMs === undefined, {
    message: 'give sendAt or delayMs, not both',
    path: ['sendAt'],
  });

export interface ScheduleContext {
  /** Configured accounts. */
  readonly appIds: ReadonlySet<string>;
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
  const parsed = requestSchema.safeParse(input, { error: readableIssue });
  if (!parsed.success) {
    throw new ValidationError('invalid message request', zodIssueDetails(parsed.error, ''));
  }
  const r = parsed.data;
  const details: IssueDetail[] = [];
  if (!ctx.appIds.has(r.appId))
    details.push({ path: 'appId', message: `no account ${r.appId} is configured` });

  let payload: Record<string, unknown> = r.message;
  try {
    payload = r.channel === 'template' ? parseTemplateMessage(r.message) : parseCustomMessage(r.message);
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

  return {
    id: randomUUID(),
    appId: r.appId,
    openid: r.openid,
    channel: r.channel,
    payload,
    dueAt: new Date(Math.max(requested, now)),
    idempotencyKey: r.idempotencyKey ?? null,
    cancelKey: r.cancelKey ?? null,
    maxLatenessMs: r.maxLatenessMs ?? null,
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
            ]),
          )
          .digest('base64url')
      : null,
  };
}
