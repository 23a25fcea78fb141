import { z } from 'zod';
import { parseInput } from '../validation';

/** The customer-service msgtypes of reference/wechat.md §1.1. */
export const MSGTYPES = [
  'text',
  'image',
  'voice',
  'video',
  'music',
  'news',
  'mpnews',
  'mpnewsarticle',
  'msgmenu',
  'wxcard',
  'miniprogrampage',
] as const;
export type Msgtype = (typeof MSGTYPES)[number];

/** WeChat's text limit (reference/wechat.md §1, community-reported; it answers 45002 above it). */
export const TEXT_MAX_BYTES = 2048;
/** Options of one msgmenu; WeChat documents no limit, ten keeps a menu readable on a phone. */
const MSGMENU_MAX_ITEMS = 10;

const id = z.string().min(1, 'must not be empty');
const optionalText = z.string().optional();
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const textBody = z.strictObject({
  content: z
    .string()
    .min(1, 'must not be empty')
    .refine((s) => Buffer.byteLength(s, 'utf8') <= TEXT_MAX_BYTES, {
      message: `must be at most ${TEXT_MAX_BYTES} bytes of UTF-8`,
      params: { rule: 'too_big', origin: 'bytes', maximum: TEXT_MAX_BYTES, inclusive: true },
    }),
});
const media = z.strictObject({ media_id: id });
const video = z.strictObject({
  media_id: id,
  thumb_media_id: id,
  title: optionalText,
  description: optionalText,
});
const music = z.strictObject({
  title: optionalText,
  description: optionalText,
  musicurl: httpUrl,
  hqmusicurl: httpUrl,
  thumb_media_id: id,
});
const article = z.strictObject({
  title: id,
  description: optionalText,
  url: httpUrl,
  picurl: httpUrl.optional(),
});
const news = z.strictObject({
  // WeChat answers 45008 for more than one article (reference/wechat.md §1.1).
  articles: z.array(article).length(1, 'must hold exactly 1 article'),
});
const msgmenu = z.strictObject({
  head_content: optionalText,
  list: z
    .array(z.strictObject({ id, content: id }))
    .min(1, 'must hold at least 1 option')
    .max(MSGMENU_MAX_ITEMS, `must hold at most ${MSGMENU_MAX_ITEMS} options`),
  tail_content: optionalText,
});
const miniprogrampage = z.strictObject({ title: optionalText, appid: id, pagepath: id, thumb_media_id: id });
const customservice = z.strictObject({
  kf_account: z.string().regex(/^[^@\s]+@[^@\s]+$/, 'must look like prefix@account'),
});

/** One variant: `{ msgtype: <name>, <name>: body, customservice? }`. */
const variant = <M extends Msgtype, B extends z.ZodType>(msgtype: M, body: B) =>
  z.strictObject({
    msgtype: z.literal(msgtype),
    [msgtype]: body,
    customservice: customservice.optional(),
  } as {
    msgtype: z.ZodLiteral<M>;
    customservice: z.ZodOptional<typeof customservice>;
  } & Record<M, B>);

const customMessageSchema = z.discriminatedUnion(
  'msgtype',
  [
    variant('text', textBody),
    variant('image', media),
    variant('voice', media),
    variant('video', video),
    variant('music', music),
    variant('news', news),
    variant('mpnews', media),
    variant('mpnewsarticle', z.strictObject({ article_id: id })),
    variant('msgmenu', msgmenu),
    variant('wxcard', z.strictObject({ card_id: id })),
    variant('miniprogrampage', miniprogrampage),
  ],
  {
    error: (issue) => {
      if (issue.code !== 'invalid_union') return undefined;
      const missing = (issue.input as Record<string, unknown>).msgtype === undefined;
      return `${missing ? 'is required, one' : 'must be one'} of ${MSGTYPES.join(', ')}`;
    },
  },
);

const templateMessageSchema = z.strictObject({
  template_id: id,
  url: httpUrl.optional(),
  miniprogram: z.strictObject({ appid: id, pagepath: z.string().optional() }).optional(),
  client_msg_id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
  data: z
    .record(
      z.string().min(1, 'keys must not be empty'),
      z.strictObject({
        value: z.string(),
        color: z
          .string()
          .regex(/^#[0-9A-Fa-f]{6}$/, 'must be a #RRGGBB colour')
          .optional(),
      }),
    )
    .refine((d) => Object.keys(d).length > 0, {
      message: 'must hold at least one field',
      params: { rule: 'too_small', origin: 'object', minimum: 1, inclusive: true },
    }),
});

/** `thing` keywords hold at most 20 characters (reference/wechat-platform.md §2.2); WeChat answers 47003 above. */
const NOTICE_THING_MAX_CHARS = 20;

/** A subscription notice (`message/subscribe/bizsend`, reference/wechat-platform.md §2.2), without `touser`. */
const noticeMessageSchema = z.strictObject({
  template_id: id,
  page: httpUrl.optional(),
  miniprogram: z.strictObject({ appid: id, pagepath: z.string().optional() }).optional(),
  data: z
    .record(z.string().min(1, 'keys must not be empty'), z.strictObject({ value: z.string() }))
    .refine((d) => Object.keys(d).length > 0, {
      message: 'must hold at least one field',
      params: { rule: 'too_small', origin: 'object', minimum: 1, inclusive: true },
    })
    .refine(
      (d) =>
        Object.entries(d).every(
          ([key, { value }]) => !key.startsWith('thing') || [...value].length <= NOTICE_THING_MAX_CHARS,
        ),
      `a thing keyword's value must be at most ${NOTICE_THING_MAX_CHARS} characters`,
    ),
});

/** A customer-service message as the service stores it: everything but `touser`. */
export type CustomMessage = z.output<typeof customMessageSchema>;
/** A template message as the service stores it: everything but `touser`. */
export type TemplateMessage = z.output<typeof templateMessageSchema>;
/** A subscription notice as the service stores it: everything but `touser`. */
export type NoticeMessage = z.output<typeof noticeMessageSchema>;

const UNKNOWN_FIELD_MESSAGES: Readonly<Record<string, string>> = {
  touser: 'is not allowed: the recipient is the request’s openid',
};

function parseWith<T>(schema: z.ZodType<T>, input: unknown, kind: string, pathPrefix: string): T {
  return parseInput(
    schema,
    input,
    (details) => `invalid ${kind} message: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
    { prefix: pathPrefix, unknownFields: UNKNOWN_FIELD_MESSAGES },
  );
}

/**
 * Turns `input` into a customer-service message (reference/wechat.md §1.1) or throws a ValidationError
 * whose details list every problem as `{ path, message }`, paths starting with `pathPrefix`.
 */
export function parseCustomMessage(input: unknown, pathPrefix = 'message'): CustomMessage {
  return parseWith(customMessageSchema, input, 'customer-service', pathPrefix);
}

/** Turns `input` into a template message (reference/wechat.md §6.1) or throws a ValidationError. */
export function parseTemplateMessage(input: unknown, pathPrefix = 'message'): TemplateMessage {
  return parseWith(templateMessageSchema, input, 'template', pathPrefix);
}

/** Turns `input` into a subscription notice (reference/wechat-platform.md §2.2) or throws a ValidationError. */
export function parseNoticeMessage(input: unknown, pathPrefix = 'message'): NoticeMessage {
  return parseWith(noticeMessageSchema, input, 'subscription notice', pathPrefix);
}

/** Parses a message for `channel`: a customer-service message, a template message or a subscription notice. */
export function parseChannelMessage(
  channel: 'custom' | 'template' | 'notice',
  input: unknown,
  pathPrefix = 'message',
): CustomMessage | TemplateMessage | NoticeMessage {
  if (channel === 'template') return parseTemplateMessage(input, pathPrefix);
  if (channel === 'notice') return parseNoticeMessage(input, pathPrefix);
  return parseCustomMessage(input, pathPrefix);
}

/** A sequence step's fallback: a template message, or a subscription notice marked `"channel": "notice"`. */
export type StepFallback = TemplateMessage | (NoticeMessage & { readonly channel: 'notice' });

/** Whether a fallback asks for a subscription notice (`"channel": "notice"`) rather than a template message. */
export const isNoticeFallback = (fallback: Readonly<Record<string, unknown>>): boolean =>
  fallback.channel === 'notice';

/**
 * Turns a step's `fallback` into a template message (`"channel": "template"` or none) or a marked
 * subscription notice (`"channel": "notice"`), or throws a ValidationError.
 */
export function parseStepFallback(input: unknown, pathPrefix: string): StepFallback {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return parseTemplateMessage(input, pathPrefix);
  const { channel, ...message } = input as Record<string, unknown>;
  if (channel === 'notice') return { ...parseNoticeMessage(message, pathPrefix), channel: 'notice' };
  // An explicit "template" is the default spelled out; any other channel is refused as an unknown field.
  return parseTemplateMessage(channel === 'template' ? message : input, pathPrefix);
}

/** A stored fallback as the message's `fallback` and `fallbackChannel`: the marker moves to the channel. */
export function splitFallback(fallback: Readonly<Record<string, unknown>>): {
  readonly fallback: Record<string, unknown>;
  readonly fallbackChannel: 'template' | 'notice';
} {
  if (!isNoticeFallback(fallback)) return { fallback: { ...fallback }, fallbackChannel: 'template' };
  const { channel: _channel, ...notice } = fallback;
  return { fallback: notice, fallbackChannel: 'notice' };
}
