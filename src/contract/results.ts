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
  series: z.array(seriesPointSchema),
});

export type VariantResult = z.output<typeof variantResultSchema>;
export type StepResult = z.output<typeof stepResultSchema>;
export type SeriesPoint = z.output<typeof seriesPointSchema>;
export type SequenceResults = z.output<typeof sequenceResultsSchema>;
