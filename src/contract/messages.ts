import { z } from 'zod';
import { ISO_WITH_ZONE, isCalendarTime } from './iso-time';

/** How a message is sent: a customer-service message, a template message, or a subscription notice. */
export const CHANNELS = ['custom', 'template', 'notice'] as const;

/** WeChat's openid alphabet and length, as the API accepts it. */
export const OPENID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** Longest cancellation reason, in characters: it is stored on the ledger row and shown in the admin page. */
export const MAX_REASON_CHARS = 500;

/** Longest idempotency key and cancel key, in characters. */
const MAX_KEY_CHARS = 200;
/** How late a message is still worth sending, in ms: a second to 30 days (messages and sequence steps). */
const MIN_LATENESS_MS = 1000;
const MAX_LATENESS_MS = 30 * 86_400_000;

/** How late a message is still worth sending, in ms: a second to 30 days (messages and sequence steps). */
export const maxLatenessMsSchema = z.number().int().min(MIN_LATENESS_MS).max(MAX_LATENESS_MS);

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
    idempotencyKey: z.string().min(1).max(MAX_KEY_CHARS).optional(),
    cancelKey: z.string().min(1).max(MAX_KEY_CHARS).optional(),
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

/** A message request as `messageRequestSchema` parses it. */
export type ParsedMessageRequest = z.output<typeof messageRequestSchema>;

const REQUEST_FIELDS: ReadonlySet<string> = new Set(messageFieldsSchema.keyof().options);
/** Keys a plain `message` is not copied with here: zod's record and plain-object checks treat them specially. */
const SPECIAL_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** What JSON.parse makes of `{…}`: an object whose prototype is Object's, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

const isKey = (v: unknown) => typeof v === 'string' && v.length >= 1 && v.length <= MAX_KEY_CHARS;
const isWholeMs = (v: unknown, min: number, max: number) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/**
 * `input` as `messageRequestSchema` parses it, checked in one pass without zod, when it has the shape
 * nearly every request has: a JSON object of known fields, none undefined, each valid, and a plain
 * `message`. Null for anything else, valid or not: zod then parses it and words the error, if any. It
 * accepts nothing zod refuses and returns what zod returns (fields in the schema's order, `channel`
 * defaulted, `message` a copy); a unit test holds the two to that on generated inputs. A batch line spent
 * more time in zod's per-field parse than in anything else the api does with it.
 */
export function quickMessageRequest(input: unknown): ParsedMessageRequest | null {
  if (!isJsonObject(input)) return null;
  for (const key in input) if (!REQUEST_FIELDS.has(key) || input[key] === undefined) return null;
  const { appId, openid, channel = 'custom', message, sendAt, delayMs, idempotencyKey, cancelKey } = input;
  const { maxLatenessMs, frequencyCapped } = input;
  if (typeof appId !== 'string' || appId.length === 0) return null;
  if (typeof openid !== 'string' || !OPENID_PATTERN.test(openid)) return null;
  if (channel !== 'custom' && channel !== 'template' && channel !== 'notice') return null;
  if (!isJsonObject(message)) return null;
  if (sendAt !== undefined && (typeof sendAt !== 'string' || !isCalendarTime(sendAt))) return null;
  if (delayMs !== undefined && !isWholeMs(delayMs, 0, Number.MAX_SAFE_INTEGER)) return null;
  if (sendAt !== undefined && delayMs !== undefined) return null;
  if (idempotencyKey !== undefined && !isKey(idempotencyKey)) return null;
  if (cancelKey !== undefined && !isKey(cancelKey)) return null;
  if (maxLatenessMs !== undefined && !isWholeMs(maxLatenessMs, MIN_LATENESS_MS, MAX_LATENESS_MS)) return null;
  if (frequencyCapped !== undefined && typeof frequencyCapped !== 'boolean') return null;
  const copy: Record<string, unknown> = {};
  for (const key in message) {
    if (SPECIAL_KEYS.has(key)) return null;
    copy[key] = message[key];
  }
  // Assigned one by one, in the schema's order, as zod builds its output: a field left out stays out.
  const parsed: ParsedMessageRequest = { appId, openid, channel, message: copy };
  if (sendAt !== undefined) parsed.sendAt = sendAt;
  if (delayMs !== undefined) parsed.delayMs = delayMs as number;
  if (idempotencyKey !== undefined) parsed.idempotencyKey = idempotencyKey as string;
  if (cancelKey !== undefined) parsed.cancelKey = cancelKey as string;
  if (maxLatenessMs !== undefined) parsed.maxLatenessMs = maxLatenessMs as number;
  if (frequencyCapped !== undefined) parsed.frequencyCapped = frequencyCapped;
  return parsed;
}

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
