import { z } from 'zod';
import { ISO_WITH_ZONE, isCalendarTime } from './iso-time';

/** How a message is sent: a customer-service message, a template message, or a subscription notice. */
export const CHANNELS = ['custom', 'template', 'notice'] as const;

/** WeChat's openid alphabet and length, as the API accepts it. */
export const OPENID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** Longest cancellation reason, in characters: it is stored on the ledger row and shown in the admin page. */
export const MAX_REASON_CHARS = 500;

/** How late a message is still worth sending, in ms: a second to 30 days (messages and sequence steps). */
export const maxLatenessMsSchema = z
  .number()
  .int()
  .min(1000)
  .max(30 * 86_400_000);

/** The fields of a message request, without the rule across them (a reschedule's body takes any subset). */
const messageFieldsSchema = z
  .object({
    appId: z.string().min(1),
    openid: z.string().regex(OPENID_PATTERN, 'must be 1–128 letters, digits, _ or -'),
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
    /** Counts against the account's frequency cap, as a sequence step does (default false: not capped). */
    frequencyCapped: z.boolean().optional(),
  })
  .strict();

/** `POST /v1/messages` (and each NDJSON batch line, and a reschedule's request once merged). */
export const messageRequestSchema = messageFieldsSchema
  .refine((r) => r.sendAt === undefined || r.delayMs === undefined, {
    message: 'give sendAt or delayMs, not both',
    path: ['sendAt'],
  })
  .describe('Give `sendAt` or `delayMs`, not both; neither sends now.');

/**
 * `PUT /v1/messages/:id` and `PUT /v1/messages/by-key/:appId/:cancelKey`: the new `sendAt` or `delayMs`,
 * and any other field of a message request to change. By id, the fields left out are the old message's;
 * by key, `appId` and `cancelKey` are the path's. The merged request is then checked as a new one.
 */
export const rescheduleRequestSchema = messageFieldsSchema
  .partial()
  // No default: a channel left out is the old message's.
  .extend({ channel: z.enum(CHANNELS).optional() })
  .refine((r) => r.sendAt !== undefined || r.delayMs !== undefined, {
    message: 'give the new sendAt or delayMs',
    path: ['sendAt'],
  })
  .describe('Give the new `sendAt` or `delayMs`.');

/** `POST /v1/cancellations`: every message of a cancel key, or of a follower, from now on. */
export const cancellationSchema = z
  .object({
    appId: z.string().min(1),
    cancelKey: z.string().min(1).max(200).optional(),
    openid: z.string().min(1).max(128).optional(),
    reason: z.string().min(1).max(MAX_REASON_CHARS),
  })
  .strict()
  .refine((c) => (c.cancelKey === undefined) !== (c.openid === undefined), {
    message: 'give exactly one of cancelKey or openid',
    path: ['cancelKey'],
  });

/** `DELETE /v1/messages/:id?reason=`; other query parameters are ignored, as on every route. */
export const cancelQuerySchema = z.object({ reason: z.string().max(MAX_REASON_CHARS).optional() });

/** The public JSON of a message: no internal columns (hashes, seq). Times are ISO 8601 strings. */
export const messageViewSchema = z.object({
  id: z.string(),
  appId: z.string(),
  openid: z.string(),
  channel: z.enum(CHANNELS),
  /** The message's lifecycle state: queued, sending, sent, skipped, cancelled, failed, unknown. */
  status: z.string(),
  statusReason: z.string().nullable(),
  dueAt: z.string(),
  attempts: z.number(),
  idempotencyKey: z.string().nullable(),
  cancelKey: z.string().nullable(),
  maxLatenessMs: z.number().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  message: z.record(z.string(), z.unknown()),
  /** A sent subscription notice's delivery result from WeChat (`success`, `failed:<ErrorCode>`), else null. */
  noticeResult: z.string().nullable(),
  /**
   * A sent template message's delivery report from WeChat (`TEMPLATESENDJOBFINISH`): `delivered`,
   * `failed_user_block`, `failed_system`, `failed_freq_limit` or `failed_other`; null until one came.
   */
  deliveryReport: z.string().nullable(),
});

/** `PUT /v1/messages/:id`: the replacement, and the id of the message it replaced (now cancelled). */
export const rescheduledMessageSchema = messageViewSchema.extend({ replaces: z.string() });

/** `PUT /v1/messages/by-key/:appId/:cancelKey`: the new message, and how many open ones of the key it cancelled. */
export const rescheduledByKeySchema = messageViewSchema.extend({ cancelled: z.number() });

/** One call to WeChat for a message, as `GET /v1/messages/:id` lists them. */
export const deliveryAttemptSchema = z.object({
  attempt: z.number(),
  errcode: z.number().nullable(),
  errmsg: z.string().nullable(),
  durationMs: z.number(),
  outcome: z.string(),
  at: z.string(),
});

/** `GET /v1/messages/:id`: the message and every attempt to deliver it. */
export const messageDetailSchema = messageViewSchema.extend({
  deliveryAttempts: z.array(deliveryAttemptSchema),
});

/** `POST /v1/cancellations` answers the cancellation and how many messages it covered. */
export const cancellationViewSchema = z.object({
  id: z.number(),
  appId: z.string(),
  scope: z.string(),
  target: z.string(),
  reason: z.string(),
  createdAt: z.string(),
  matched: z.number(),
});

export type MessageRequest = z.input<typeof messageRequestSchema>;
export type MessageView = z.output<typeof messageViewSchema>;
export type RescheduledMessage = z.output<typeof rescheduledMessageSchema>;
export type RescheduledByKey = z.output<typeof rescheduledByKeySchema>;
export type DeliveryAttempt = z.output<typeof deliveryAttemptSchema>;
export type MessageDetail = z.output<typeof messageDetailSchema>;
export type CancellationView = z.output<typeof cancellationViewSchema>;
