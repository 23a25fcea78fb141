import { z } from 'zod';

const countsByReasonSchema = z.record(z.string(), z.number());

/**
 * One variant's outcomes at an A/B step: its rows by status, and `exitedAfter`, the enrollments an exit
 * condition ended after this variant was sent to them.
 */
export const variantResultSchema = z.object({
  name: z.string(),
  scheduled: z.number(),
  pending: z.number(),
  sent: z.number(),
  skipped: z.number(),
  failed: z.number(),
  cancelled: z.number(),
  unknown: z.number(),
  exitedAfter: z.number(),
});

/** One step's outcomes across all versions of a sequence; `latenessMs` is null until a step was sent. */
export const stepResultSchema = z.object({
  stepIndex: z.number(),
  scheduled: z.number(),
  pending: z.number(),
  sent: z.number(),
  cancelled: z.number(),
  unknown: z.number(),
  skipped: countsByReasonSchema,
  failed: countsByReasonSchema,
  /**
   * Sent template messages by the delivery report WeChat pushed for them (`TEMPLATESENDJOBFINISH`):
   * `delivered`, `failed_user_block`, `failed_system`, `failed_freq_limit`, `failed_other`. A sent message
   * without a report yet is not counted here.
   */
  delivery: countsByReasonSchema,
  latenessMs: z.object({ p50: z.number(), p95: z.number(), p99: z.number(), max: z.number() }).nullable(),
  /** An A/B step's outcomes per variant (by name); absent for a step without variants. */
  variants: z.array(variantResultSchema).optional(),
  /**
   * A last-chance step's: how many times a follower's new interaction moved it to the new window's end
   * (each move counted once, not as a scheduled and a cancelled message), and how many followers it
   * `recovered` — who interacted again after it was sent. Absent for other steps.
   */
  lastChance: z.object({ moved: z.number(), recovered: z.number() }).optional(),
});

/**
 * One path of one version of a journey: how many enrollments entered it (the main path: the version's
 * enrollments; another: the waits that took it), the step numbers it holds, and — for a path that ends
 * in a wait — how many of those waits are still `waiting`, were met (`yes`), timed out (`no`) or `ended`
 * (an exit, a pause, an unfollow).
 */
export const pathResultSchema = z.object({
  version: z.number(),
  path: z.string(),
  entered: z.number(),
  steps: z.array(z.number()),
  /** Conversions attributed to a step of this path (the last message sent before the goal). */
  converted: z.number(),
  wait: z.object({ waiting: z.number(), yes: z.number(), no: z.number(), ended: z.number() }).nullable(),
});

/**
 * A journey's conversions: enrollments that reached the goal within its period, the rate among the
 * enrollments of versions with a goal, and the count per version, step and A/B variant of the last message
 * sent before the goal (`stepIndex` null: reached before any message was sent).
 */
export const conversionResultsSchema = z.object({
  converted: z.number(),
  rate: z.number(),
  perStep: z.array(
    z.object({
      version: z.number(),
      stepIndex: z.number().nullable(),
      variant: z.string().nullable(),
      converted: z.number(),
    }),
  ),
});

/** Outcomes of one minute with activity. */
export const seriesPointSchema = z.object({
  at: z.string(),
  sent: z.number(),
  skipped: z.number(),
  failed: z.number(),
});

/**
 * `GET /v1/sequences/:id/results`: per step, and per minute over the last 24 hours. `exited` counts the
 * enrollments that ended with steps still pending, by condition: an exit condition's ledger reason
 * (`exit:message`, `exit:message:<keyword>`, `exit:click:<key>`, `exit:event:<name>`) or `unsubscribed`.
 */
export const sequenceResultsSchema = z.object({
  sequenceId: z.string(),
  enrolled: z.number(),
  exited: countsByReasonSchema,
  steps: z.array(stepResultSchema),
  /** A journey's paths, per version that enrolled someone (empty for a straight sequence). */
  paths: z.array(pathResultSchema),
  /** Null for a sequence none of whose versions has a goal. */
  conversions: conversionResultsSchema.nullable(),
  series: z.array(seriesPointSchema),
});

export type VariantResult = z.output<typeof variantResultSchema>;
export type StepResult = z.output<typeof stepResultSchema>;
export type SeriesPoint = z.output<typeof seriesPointSchema>;
export type PathResult = z.output<typeof pathResultSchema>;
export type ConversionResults = z.output<typeof conversionResultsSchema>;
export type SequenceResults = z.output<typeof sequenceResultsSchema>;
