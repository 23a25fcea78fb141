import { z } from 'zod';

/**
 * A journey's structure beyond a straight line: a path (the main one is the sequence's `steps`) may end in a
 * wait for something the follower does, which takes the `yes` path when it happens and the `no` path at its
 * timeout. Paths are named and declared once under `paths`; the waits make them a tree.
 */

/** The name the main path (the sequence's own `steps`) goes by in paths and results. */
export const MAIN_PATH = 'main';
/** Most named paths a journey may declare, besides the main one. */
export const MAX_PATHS = 20;
/** Most waits on any route from the start: a path's depth is the waits before it. */
export const MAX_DEPTH = 5;
/** Most steps of all paths together (each keeps one step number for results). */
export const MAX_JOURNEY_STEPS = 60;
/** The longest a wait may watch for its condition. */
export const MAX_WAIT_MS = 90 * 86_400_000;

/** A path's name: letters, digits, `_` or `-`, as results and the editor show it. */
export const pathNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}$/, 'a path name is 1–32 letters, digits, _ or -')
  .refine((name) => name !== MAIN_PATH, {
    message: `"${MAIN_PATH}" names the sequence's own steps`,
    params: { rule: 'reserved_name', name: MAIN_PATH },
  });

/** A scene, a menu key. */
export const tokenSchema = z.string().min(1).max(64);
/** A keyword a user message contains. */
export const keywordSchema = z.string().min(1).max(30);

/** The name of an event another system posts for a follower (`purchased`, `course_signup`). */
export const eventNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1–64 letters, digits, _ . : or -');

/** The name of an enrollment's variable, as a step's `{{name}}` writes it. */
export const varNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a variable name is a letter or _, then letters, digits or _');

/**
 * Values of an enrollment's variables (a step's `{{name}}`): text, up to 1,000 characters each, 50 of them —
 * given when an API call enrolls the follower, or later by a posted event's `vars`.
 */
export const varsSchema = z
  .record(varNameSchema, z.string().max(1000))
  .refine((v) => Object.keys(v).length <= 50, {
    message: 'at most 50 variables',
    params: { rule: 'too_big', origin: 'object', maximum: 50, inclusive: true },
  });

/** A user message: any, or one containing `keyword` (ASCII letters in any case). */
export const messageConditionSchema = z
  .object({ type: z.literal('message'), keyword: keywordSchema.optional() })
  .strict();
/** A menu click on `key`. */
export const clickConditionSchema = z.object({ type: z.literal('click'), key: tokenSchema }).strict();
/** An event another system posts (`POST /v1/followers/:appId/:openid/events`). */
export const eventConditionSchema = z.object({ type: z.literal('event'), name: eventNameSchema }).strict();

/**
 * What a wait watches for: a user message, a menu click, a scan of the QR code with `scene`, an event, or
 * the enrollment's variable `name` having a value (given at enrollment, or by a posted event's `vars`).
 */
export const waitConditionSchema = z.discriminatedUnion('type', [
  messageConditionSchema,
  clickConditionSchema,
  z.object({ type: z.literal('scan'), scene: tokenSchema }).strict(),
  eventConditionSchema,
  z.object({ type: z.literal('var'), name: varNameSchema }).strict(),
]);

/**
 * The wait that ends a path: from `afterMs` after the path's start (default: its last step's offset) it
 * watches for `until` for `timeoutMs`; the condition met takes `yes` at once, the timeout takes `no` (null:
 * the journey ends there).
 */
export const waitSchema = z
  .object({
    afterMs: z.number().int().min(0).max(MAX_WAIT_MS).optional(),
    until: waitConditionSchema,
    timeoutMs: z
      .number({ error: 'a wait needs a timeout (ms): what happens when the follower does nothing' })
      .int()
      .min(1000, 'a wait lasts at least 1 s (1000 ms)')
      .max(MAX_WAIT_MS),
    yes: pathNameSchema,
    no: pathNameSchema.nullable().default(null),
  })
  .strict();

export type WaitCondition = z.output<typeof waitConditionSchema>;
export type WaitInput = z.input<typeof waitSchema>;
export type Wait = z.output<typeof waitSchema>;

/** How long after enrollment reaching the goal counts, when the goal does not say. */
export const DEFAULT_GOAL_PERIOD_MS = 30 * 86_400_000;

/**
 * A journey's conversion goal: a posted event, a text message containing a keyword, or a menu click,
 * reached within `periodMs` of the enrollment. Results count conversions per step, path and A/B variant
 * (the last message sent before the goal); with `exit`, reaching it also ends the enrollment.
 */
export const goalSchema = z
  .object({
    until: z.discriminatedUnion('type', [
      eventConditionSchema,
      z.object({ type: z.literal('message'), keyword: keywordSchema }).strict(),
      clickConditionSchema,
    ]),
    periodMs: z.number().int().min(60_000).max(MAX_WAIT_MS).default(DEFAULT_GOAL_PERIOD_MS),
    exit: z.boolean().default(false),
  })
  .strict();

export type GoalInput = z.input<typeof goalSchema>;
export type Goal = z.output<typeof goalSchema>;
