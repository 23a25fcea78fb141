import { z } from 'zod';
import { maxLatenessMsSchema, OPENID_PATTERN } from './messages';
import { sequenceQuietHoursSchema, warningSchema } from './quiet-hours';
import {
  clickConditionSchema,
  eventConditionSchema,
  eventNameSchema,
  goalSchema,
  keywordSchema,
  MAX_PATHS,
  messageConditionSchema,
  pathNameSchema,
  tokenSchema,
  varsSchema,
  waitSchema,
} from './journeys';

/** Most steps a sequence may have. */
export const MAX_STEPS = 20;
const MAX_OFFSET_MS = 366 * 86_400_000;
/**
 * A last-chance step goes out this long before the follower's contact window closes, at least 1 s: its
 * offset is the window's end, which each new interaction moves.
 */
export const MIN_BEFORE_CLOSE_MS = 1000;

/** A sequence's lifecycle. */
export const SEQUENCE_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
/** The status a sequence is created in: `POST /v1/sequences` reads it beside the definition (default draft). */
export const createStatusSchema = z.enum(['draft', 'active']);
/** `POST /v1/sequences/:id/:action`: the status changes. */
export const SEQUENCE_ACTIONS = ['activate', 'pause', 'resume', 'archive'] as const;

/** Most sequences one page of `GET /v1/sequences` gives, and how many without `limit`. */
export const SEQUENCE_PAGE_MAX = 500;
export const SEQUENCE_PAGE_DEFAULT = 100;

/**
 * `GET /v1/sequences?appId=&limit=&cursor=`: the sequences of one account, or of all without `appId`,
 * newest first, a page at a time.
 */
export const sequenceListQuerySchema = z.object({
  appId: z.string().optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(SEQUENCE_PAGE_MAX)
    .optional()
    .describe(`Sequences per page, 1–${SEQUENCE_PAGE_MAX}; default ${SEQUENCE_PAGE_DEFAULT}.`),
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe('The `next` of the page before: the page after it. Without it, the first page.'),
});

/**
 * What starts a sequence. A `subscribe` with a scene matches a follow from that QR code (`qrscene_<scene>`);
 * an `event` is posted by another system (`POST /v1/followers/:appId/:openid/events`); `api`: no push
 * starts it, only `POST /v1/sequences/:id/enrollments` (which can enroll into any active sequence).
 */
export const triggerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), scene: tokenSchema.optional() }).strict(),
  z.object({ type: z.literal('scan'), scene: tokenSchema }).strict(),
  z.object({ type: z.literal('click'), key: tokenSchema }).strict(),
  z.object({ type: z.literal('keyword'), keyword: keywordSchema }).strict(),
  z.object({ type: z.literal('event'), name: eventNameSchema }).strict(),
  z.object({ type: z.literal('api') }).strict(),
]);

/** Most exit conditions a sequence may have. */
export const MAX_EXITS = 20;

/**
 * What ends a follower's enrollment early: a user message (any, or one containing `keyword`, ASCII letters
 * in any case), a menu click on `key`, or an event another system posts.
 */
export const exitConditionSchema = z.discriminatedUnion('type', [
  messageConditionSchema,
  clickConditionSchema,
  eventConditionSchema,
]);

/** Fewest and most variants an A/B step may have. */
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 5;

/** One variant of an A/B step: each enrollment gets one, picked by `weight` (stable per follower and step). */
const variantRequestSchema = z
  .object({
    name: z.string().min(1).max(32),
    weight: z.number().int().min(1).max(1000),
    message: z.record(z.string(), z.unknown()),
    fallback: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .strict();

/**
 * One step as sent: a `message` (and `fallback`), or `variants` instead; each message and fallback is checked
 * against the WeChat message schemas after this. Timed by `offsetMs` after its path starts, or, a
 * last-chance step, by `beforeWindowCloseMs`: that long before the follower's contact window closes.
 */
const stepRequestSchema = z
  .object({
    offsetMs: z.number().int().min(0).max(MAX_OFFSET_MS).optional(),
    beforeWindowCloseMs: z.number().int().min(MIN_BEFORE_CLOSE_MS).max(MAX_OFFSET_MS).optional(),
    message: z.record(z.string(), z.unknown()).optional(),
    fallback: z.record(z.string(), z.unknown()).nullable().optional(),
    variants: z.array(variantRequestSchema).min(MIN_VARIANTS).max(MAX_VARIANTS).optional(),
    maxLatenessMs: maxLatenessMsSchema.optional(),
  })
  .strict()
  .superRefine((step, ctx) => {
    if (step.beforeWindowCloseMs !== undefined && step.offsetMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['offsetMs'],
        message:
          'a last-chance step is timed by the window’s end (beforeWindowCloseMs): leave offsetMs out or 0',
        params: { rule: 'last_chance_offset' },
      });
    } else if (step.beforeWindowCloseMs === undefined && step.offsetMs === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['offsetMs'],
        message:
          'a step needs offsetMs (its time after the path starts) or beforeWindowCloseMs (a last-chance step)',
        params: { rule: 'required' },
      });
    }
    if (step.variants && (step.message || step.fallback)) {
      ctx.addIssue({
        code: 'custom',
        path: ['variants'],
        message: 'a step has a message or variants, not both',
        params: { rule: 'message_or_variants' },
      });
    } else if (!step.variants && !step.message) {
      ctx.addIssue({
        code: 'custom',
        path: ['message'],
        message: 'a step needs a message (or variants)',
        params: { rule: 'required' },
      });
    }
  })
  .transform((step) => ({ ...step, offsetMs: step.offsetMs ?? 0 }));

/** A named path as sent: its steps (offsets from when the path starts) and the wait that may end it. */
const pathRequestSchema = z
  .object({
    steps: z.array(stepRequestSchema).max(MAX_STEPS).default([]),
    wait: waitSchema.optional(),
  })
  .strict();

/**
 * `POST/PUT /v1/sequences` and `/v1/sequences/validate`, without `status` (read apart, on create only).
 * `steps` are the main path; `wait` ends it, leading to the named `paths` (a journey, a tree of them).
 */
export const sequenceDefinitionSchema = z
  .object({
    appId: z.string().min(1),
    name: z.string().trim().min(1).max(100),
    trigger: triggerSchema,
    steps: z.array(stepRequestSchema).max(MAX_STEPS),
    wait: waitSchema.optional(),
    paths: z
      .record(pathNameSchema, pathRequestSchema)
      .refine((paths) => Object.keys(paths).length <= MAX_PATHS, {
        message: `at most ${MAX_PATHS} paths`,
        params: { rule: 'too_big', origin: 'object', maximum: MAX_PATHS, inclusive: true },
      })
      .default({}),
    /** The journey's conversion goal: what counts as converted, within how long, and whether it ends it. */
    goal: goalSchema.optional(),
    oncePerFollower: z.boolean().default(false),
    exits: z.array(exitConditionSchema).max(MAX_EXITS).default([]),
    /** Its own quiet hours, `false` for none; absent: the account's default. */
    quietHours: sequenceQuietHoursSchema.optional(),
  })
  .strict();

/** `POST /v1/sequences`: a definition, and the status to create it in. */
export const sequenceCreateSchema = sequenceDefinitionSchema.extend({
  status: createStatusSchema.default('draft'),
});

/** `POST /v1/sequences/:id/test-send`: one step to one follower, now. */
export const testSendSchema = z
  .object({
    openid: z.string().regex(OPENID_PATTERN),
    stepIndex: z.number().int().min(0),
    vars: varsSchema.optional(),
  })
  .strict();

/**
 * `POST /v1/sequences/:id/enrollments` (and each line of its NDJSON batch): enrolls the follower now; a
 * repeated `idempotencyKey` (per follower) answers the first enrollment and changes nothing.
 */
export const enrollmentRequestSchema = z
  .object({
    openid: z.string().regex(OPENID_PATTERN),
    vars: varsSchema.default({}),
    idempotencyKey: z.string().min(1).max(200).optional(),
  })
  .strict();

/** The answer: the enrollment and the steps it scheduled (`created: false` for a repeat). */
export const enrollmentViewSchema = z.object({
  enrollmentId: z.string(),
  sequenceId: z.string(),
  openid: z.string(),
  created: z.boolean(),
  messages: z.array(z.object({ id: z.string(), stepIndex: z.number(), dueAt: z.string() })),
});
export type EnrollmentView = z.output<typeof enrollmentViewSchema>;

/** A template message as the service stores it (fields beyond these pass through). */
const templateMessageViewSchema = z.looseObject({
  template_id: z.string(),
  url: z.string().optional(),
  data: z.record(z.string(), z.object({ value: z.string(), color: z.string().optional() })),
});

const variantViewSchema = z.object({
  name: z.string(),
  weight: z.number(),
  message: z.record(z.string(), z.unknown()),
  fallback: templateMessageViewSchema.nullable(),
});

/** A step: its `message` and `fallback`, or, for an A/B step, `variants` (and no message). */
const stepViewSchema = z.object({
  /** Its time after its path starts; 0 for a last-chance step. */
  offsetMs: z.number(),
  /** A last-chance step: how long before the follower's contact window closes it goes out. */
  beforeWindowCloseMs: z.number().optional(),
  message: z.record(z.string(), z.unknown()).optional(),
  fallback: templateMessageViewSchema.nullable().optional(),
  variants: z.array(variantViewSchema).optional(),
  maxLatenessMs: z.number().optional(),
});

/** A named path: its steps, and the wait that ends it. */
const pathViewSchema = z.object({ steps: z.array(stepViewSchema), wait: waitSchema.optional() });

/** A sequence as `/v1/sequences…` answer it; `pendingSteps` and `cancelledSteps` on some routes only. */
export const sequenceViewSchema = z.object({
  id: z.string(),
  appId: z.string(),
  name: z.string(),
  status: z.enum(SEQUENCE_STATUSES),
  version: z.number(),
  oncePerFollower: z.boolean(),
  trigger: triggerSchema,
  exits: z.array(exitConditionSchema),
  steps: z.array(stepViewSchema),
  /** The wait that ends the main path (`steps`), or null. */
  wait: waitSchema.nullable(),
  /** The paths its waits lead to, by name (`{}` for a straight sequence). */
  paths: z.record(z.string(), pathViewSchema),
  /** Its conversion goal, or null. */
  goal: goalSchema.nullable(),
  /** Its own quiet hours, `false` for none, or null: the account's default (`quietHours` of the account). */
  quietHours: z.union([z.object({ start: z.string(), end: z.string() }), z.literal(false)]).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** `GET /v1/sequences/:id`: steps still to send. */
  pendingSteps: z.number().optional(),
  /** `POST /v1/sequences/:id/pause|archive`: steps the change cancelled. */
  cancelledSteps: z.number().optional(),
  /**
   * Create and update: what the saved definition may not do as written (a step without a fallback that quiet
   * hours could push past its contact window is skipped `quiet_hours` when they do; a template field WeChat
   * drops or refuses; a template id the account's WeChat template library lacks). Not refused: a welcome
   * step on a follow would otherwise always be, and WeChat's list may be out of reach.
   */
  warnings: z.array(warningSchema).optional(),
});

/** `POST /v1/sequences/:id/duplicate`: the copy's name, the original's when left out. */
export const sequenceDuplicateSchema = z
  .object({ name: z.string().trim().min(1).max(100).optional() })
  .strict()
  .describe("The copy's name; without it, the original's.");

/** `DELETE /v1/sequences/:id`: the sequence is gone (a later GET is a 404). */
export const sequenceDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });

/** `GET /v1/sequences`. */
export const sequenceListSchema = z.object({
  sequences: z.array(sequenceViewSchema),
  next: z
    .string()
    .nullable()
    .describe('The cursor of the next page (pass it as `cursor`), or null on the last page.'),
});

/**
 * `POST /v1/sequences/validate`: the definition would be accepted (a refused one is a 400), with the
 * warnings its save would answer.
 */
export const sequenceValidSchema = z.object({ ok: z.literal(true), warnings: z.array(warningSchema) });

export type Trigger = z.output<typeof triggerSchema>;
export type ExitCondition = z.output<typeof exitConditionSchema>;
/** What the client sends to create or change a sequence (`status` only on create). */
export type SequenceBody = z.input<typeof sequenceCreateSchema>;
export type TemplateMessageView = z.output<typeof templateMessageViewSchema>;
export type StepView = z.output<typeof stepViewSchema>;
export type JourneyPathView = z.output<typeof pathViewSchema>;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];
export type SequenceView = z.output<typeof sequenceViewSchema>;
export type SequenceAction = (typeof SEQUENCE_ACTIONS)[number];
export type SequenceList = z.output<typeof sequenceListSchema>;
export type SequenceValid = z.output<typeof sequenceValidSchema>;
export type SequenceDuplicate = z.output<typeof sequenceDuplicateSchema>;
export type SequenceDeleted = z.output<typeof sequenceDeletedSchema>;
