import { z } from 'zod';
import { quietHoursSchema } from './quiet-hours';

/** The user actions that open a customer-service contact window. */
export const INTERACTION_KINDS = ['message', 'subscribe', 'scan', 'click'] as const;

/** Customer-service messages allowed within `windowMs` of an interaction. */
export const windowRuleSchema = z.object({ count: z.number(), windowMs: z.number() });

/** A rule per interaction kind; null when the service does not check the window for the account. */
export const windowPolicySchema = z
  .object({
    message: windowRuleSchema,
    subscribe: windowRuleSchema,
    scan: windowRuleSchema,
    click: windowRuleSchema,
  })
  .nullable();

/** The named window policies (see WINDOW_PRESETS in src/wechat/window-policy.ts for their rules). */
export const WINDOW_PRESET_NAMES = ['official', 'legacy-48h', 'none'] as const;

const ruleInputSchema = z
  .object({ count: z.number().int().min(1).max(1000), windowMs: z.number().int().min(1000) })
  .strict();

/** An account's window policy as written: a preset name, or a rule for each of the four interaction kinds. */
export const windowPolicyInputSchema = z.union([
  z.enum(WINDOW_PRESET_NAMES),
  z
    .object({
      message: ruleInputSchema,
      subscribe: ruleInputSchema,
      scan: ruleInputSchema,
      click: ruleInputSchema,
    })
    .strict(),
]);

/** An account's `pushMode` values: how WeChat encodes its pushes to us. */
export const PUSH_MODES = ['plaintext', 'compatible', 'safe'] as const;
/** `own`: the account's AppSecret is ours; `platform`: authorized through our third-party platform. */
export const ACCOUNT_KINDS = ['own', 'platform'] as const;
/**
 * `active` sends; `disabled` was switched off (`enabled: false`); `paused` hit WeChat's daily quota (45009)
 * and waits for its reset; `unauthorized` revoked the platform's authorization.
 */
export const ACCOUNT_STATUSES = ['active', 'disabled', 'paused', 'unauthorized'] as const;

/** An AppID: 4–64 letters, digits, `_` or `-` (WeChat's are `wx` + 16 hex digits). */
export const APP_ID_PATTERN = /^[A-Za-z0-9_-]{4,64}$/;
/**
 * Words of the webhook's routes (`/wechat/component`, `/wechat/platform/…`), in any case (Express matches
 * paths case-insensitively): an own account so named could never take a push.
 */
export const ROUTE_WORDS = ['component', 'platform'] as const;
const isRouteWord = (appId: string): boolean =>
  (ROUTE_WORDS as readonly string[]).includes(appId.toLowerCase());

/** An own account's app id: the pattern, and none of the route words. */
export const appIdSchema = z
  .string()
  .regex(APP_ID_PATTERN, 'appId must be 4–64 letters, digits, _ or -')
  .refine((appId) => !isRouteWord(appId), {
    message: `appId must not be a route word (${ROUTE_WORDS.join(', ')})`,
    params: { rule: 'route_word', words: ROUTE_WORDS },
  });
const nameSchema = z.string().trim().min(1).max(100);
const secretSchema = z.string().min(1, 'secret is required').max(128);
const tokenSchema = z.string().regex(/^[A-Za-z0-9]{3,32}$/, 'token must be 3–32 letters or digits');
const aesKeySchema = z.string().regex(/^[A-Za-z0-9]{43}$/, 'an EncodingAESKey is 43 letters or digits');
const rateSchema = z.number().int().min(1).max(100_000);

/** The zone an account's dates and times are shown in when none is given: WeChat's own day. */
export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';
/** An IANA zone name's shape ("Asia/Shanghai", "UTC"): offsets such as "+08:00" are not names. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * Whether the runtime's time zone database (ICU's, as the browser's) knows `zone` as a name. Its
 * canonical spelling is not required: ICU reads "Asia/Kolkata" as "Asia/Calcutta", both are right.
 */
export function isTimeZone(zone: string): boolean {
  if (!ZONE_NAME.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const timeZoneSchema = z.string().refine(isTimeZone, {
  message: 'timeZone must be an IANA time zone name, e.g. Asia/Shanghai',
  params: { rule: 'time_zone' },
});

/**
 * `POST /v1/accounts`: an own account (its AppSecret). The secret fields are write-only: no answer ever
 * returns them. `token` is the push Token set in WeChat's console (服务器配置); without it the webhook
 * refuses the account's pushes.
 */
/**
 * The frequency cap: at most this many drip messages per follower per calendar day across all sequences
 * (API reminders only when they ask, `frequencyCapped: true`); null for none.
 */
const frequencyCapSchema = z.number().int().min(1).max(100);

export const accountCreateSchema = z
  .object({
    appId: appIdSchema,
    name: nameSchema.nullable().default(null),
    secret: secretSchema,
    token: tokenSchema.nullable().default(null),
    encodingAESKey: aesKeySchema.nullable().default(null),
    previousEncodingAESKey: aesKeySchema.nullable().default(null),
    pushMode: z.enum(PUSH_MODES).default('plaintext'),
    windowPolicy: windowPolicyInputSchema.default('official'),
    sendRatePerSecond: rateSchema.default(1000),
    atLeastOnce: z.boolean().default(false),
    frequencyCapPerDay: frequencyCapSchema.nullable().default(null),
    enabled: z.boolean().default(true),
    timeZone: timeZoneSchema.default(DEFAULT_TIME_ZONE),
    /** The default quiet hours of the account's sequences (in `timeZone`); null for none. */
    quietHours: quietHoursSchema.nullable().default(null),
  })
  .strict()
  .refine((a) => a.pushMode === 'plaintext' || a.encodingAESKey !== null, {
    message: 'pushMode compatible or safe needs an encodingAESKey',
    path: ['encodingAESKey'],
    params: { rule: 'needs_aes_key' },
  });

/**
 * `PATCH /v1/accounts/:appId`: any subset of the create body but the app id. A secret field given a value
 * replaces it; `null` clears an optional one (name, token, encodingAESKey, previousEncodingAESKey); a
 * field left out keeps its value.
 */
export const accountPatchSchema = z
  .object({
    name: nameSchema.nullable(),
    secret: secretSchema,
    token: tokenSchema.nullable(),
    encodingAESKey: aesKeySchema.nullable(),
    previousEncodingAESKey: aesKeySchema.nullable(),
    pushMode: z.enum(PUSH_MODES),
    windowPolicy: windowPolicyInputSchema,
    sendRatePerSecond: rateSchema,
    atLeastOnce: z.boolean(),
    frequencyCapPerDay: frequencyCapSchema.nullable(),
    enabled: z.boolean(),
    timeZone: timeZoneSchema,
    quietHours: quietHoursSchema.nullable(),
  })
  .partial()
  .strict();

/** One account, as `GET /v1/accounts` lists them and every account route answers: never a secret. */
export const accountViewSchema = z.object({
  appId: z.string(),
  name: z.string().nullable(),
  kind: z.enum(ACCOUNT_KINDS),
  enabled: z.boolean(),
  status: z.enum(ACCOUNT_STATUSES),
  pushMode: z.enum(PUSH_MODES),
  /** Whether the account's pushes are taken here (a push token is configured, or it is a platform account). */
  webhook: z.boolean(),
  /**
   * The path to give WeChat's console as the server URL, after this service's public origin (a platform
   * account's is the platform's `/wechat/platform/$APPID$` with its app id).
   */
  webhookUrl: z.string(),
  hasSecret: z.boolean(),
  hasEncodingAESKey: z.boolean(),
  hasPreviousEncodingAESKey: z.boolean(),
  policyName: z.enum(['official', 'legacy-48h', 'none', 'custom']),
  windowPolicy: windowPolicySchema,
  sendRatePerSecond: z.number(),
  atLeastOnce: z.boolean(),
  /** At most this many capped messages (sequence steps; API messages that ask) per follower per day; null: no cap. */
  frequencyCapPerDay: z.number().nullable(),
  /** The IANA time zone the admin page shows the account's dates and times in (default Asia/Shanghai). */
  timeZone: z.string(),
  /** The default quiet hours of the account's sequences, in `timeZone`; null: none. */
  quietHours: z.object({ start: z.string(), end: z.string() }).nullable(),
  /**
   * The sends of WeChat's current day (Asia/Shanghai), by channel, as every worker process counts them:
   * each is one call against WeChat's daily quota of the interface (reference/wechat.md §1: 500,000
   * customer-service sends a day for an account; a 45009 answer pauses the account until the next day).
   */
  sentToday: z.object({ custom: z.number(), template: z.number() }),
  /** A platform account's permission set ids (func_info) as it last authorized; null for an own account. */
  permissions: z.array(z.number()).nullable(),
  /**
   * The channels a platform account cannot use for lack of a permission set (`custom`: needs 1, 6, 19 or
   * 100–101; `template`: 7 or 100–101; reference/wechat-platform.md §0.6); empty for an own account.
   */
  missingPermissions: z.array(z.enum(['custom', 'template'])),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** `GET /v1/accounts`: every account. */
export const accountListSchema = z.object({ accounts: z.array(accountViewSchema) });

/** `POST /v1/accounts/:appId/check`: WeChat's answer to a fresh access-token request, in words. */
export const accountCheckSchema = z.object({
  ok: z.boolean(),
  /** WeChat's errcode; 0 when it issued a token, null when no answer came (network, timeout). */
  errcode: z.number().nullable(),
  /** What the answer means and what to do, e.g. "WeChat refused the AppSecret (40001): …". */
  message: z.string(),
  checkedAt: z.string(),
});

/** One template of the account's WeChat template library, with the data fields its content names. */
export const libraryTemplateSchema = z.object({
  templateId: z.string(),
  title: z.string(),
  /** As WeChat shows it: `课程名称：{{thing1.DATA}}\n开课时间：{{time2.DATA}}`. */
  content: z.string(),
  /** Each `{{key.DATA}}` of the content, in order, labelled by the text before it on its line. */
  fields: z.array(z.object({ key: z.string(), label: z.string() })),
});

/** `GET /v1/accounts/:appId/templates?refresh=true`: fetch the list from WeChat again unless it is younger than 30 s. */
export const templateLibraryQuerySchema = z
  .object({ refresh: z.enum(['true', 'false']).optional() })
  .strict();

/**
 * `GET /v1/accounts/:appId/templates`: the account's template library as WeChat lists it (cached for
 * `TEMPLATE_LIST_TTL_MS`), or, `ok: false`, why it could not be had (no token, an errcode, no answer).
 */
export const templateLibrarySchema = z.discriminatedUnion('ok', [
  z.object({
    appId: z.string(),
    ok: z.literal(true),
    fetchedAt: z.string(),
    templates: z.array(libraryTemplateSchema),
  }),
  z.object({
    appId: z.string(),
    ok: z.literal(false),
    reason: z.string(),
    templates: z.array(libraryTemplateSchema),
  }),
]);

/** WeChat's longest temporary QR code: 30 days. */
export const QR_MAX_EXPIRE_SECONDS = 2_592_000;

/**
 * `POST /v1/accounts/:appId/qrcodes`: a parametric QR code (带参数二维码) whose scan or follow carries `scene`
 * (the `scene` of a sequence's subscribe or scan trigger): temporary (`expireSeconds`, 60 s to 30 days,
 * default 30 days) or `permanent` (WeChat allows an account 100,000 of them).
 */
export const qrCodeRequestSchema = z
  .object({
    scene: z.string().min(1).max(64),
    permanent: z.boolean().default(false),
    expireSeconds: z.number().int().min(60).max(QR_MAX_EXPIRE_SECONDS).default(QR_MAX_EXPIRE_SECONDS),
  })
  .strict();

/** The code WeChat made: its ticket, what it encodes, when it expires (null: never), and its PNG image. */
export const qrCodeSchema = z.object({
  appId: z.string(),
  scene: z.string(),
  permanent: z.boolean(),
  ticket: z.string(),
  url: z.string(),
  expiresAt: z.string().nullable(),
  /** `data:image/png;base64,…`, to show or save as it is. */
  image: z.string(),
});

/** The largest image `POST /v1/accounts/:appId/media` takes: WeChat's limit for a permanent image, 10 MB. */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/** The image types it takes (WeChat's bmp/png/jpeg/jpg/gif), as the request's Content-Type names them. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/bmp'] as const;

/** `POST /v1/accounts/:appId/media`: the image WeChat now keeps for the account, to send by `mediaId`. */
export const uploadedMediaSchema = z.object({
  appId: z.string(),
  type: z.literal('image'),
  mediaId: z.string(),
  url: z.string(),
  bytes: z.number(),
});

/** `DELETE /v1/accounts/:appId`: the account is gone; `cancelled` open messages were stopped (one ledger row). */
export const accountDeletedSchema = z.object({
  appId: z.string(),
  deleted: z.literal(true),
  cancelled: z.number(),
  /** Its sequences archived by the deletion (those not archived already): none enrolls or sends again. */
  archivedSequences: z.number(),
});

export type InteractionKind = (typeof INTERACTION_KINDS)[number];
export type WindowRule = z.output<typeof windowRuleSchema>;
export type WindowPolicyView = z.output<typeof windowPolicySchema>;
export type WindowPolicyInput = z.output<typeof windowPolicyInputSchema>;
export type PushMode = (typeof PUSH_MODES)[number];
export type AccountKind = (typeof ACCOUNT_KINDS)[number];
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
/** What a client sends to create an account (defaults may be left out). */
export type AccountCreateBody = z.input<typeof accountCreateSchema>;
/** The create body with its defaults filled in. */
export type AccountCreate = z.output<typeof accountCreateSchema>;
export type AccountPatch = z.output<typeof accountPatchSchema>;
export type AccountView = z.output<typeof accountViewSchema>;
export type AccountList = z.output<typeof accountListSchema>;
export type AccountCheck = z.output<typeof accountCheckSchema>;
export type TemplateLibraryView = z.output<typeof templateLibrarySchema>;
export type QrCodeView = z.output<typeof qrCodeSchema>;
export type UploadedMediaView = z.output<typeof uploadedMediaSchema>;
export type LibraryTemplateView = z.output<typeof libraryTemplateSchema>;
export type AccountDeleted = z.output<typeof accountDeletedSchema>;
