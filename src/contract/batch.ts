import { z } from 'zod';
import { errorBodySchema } from './errors';
import { enrollmentViewSchema } from './sequences';

/** A batch line that was accepted: the message it created, or the one its idempotency key names already. */
export const batchAcceptedLineSchema = z.object({
  line: z.number(),
  ok: z.literal(true),
  id: z.string(),
  status: z.string(),
  dueAt: z.string(),
  created: z.boolean(),
});

/** A batch line that was refused, with the error it would have had as a request of its own. */
export const batchRejectedLineSchema = errorBodySchema.extend({ line: z.number(), ok: z.literal(false) });

/** The last line of a batch that was read to its end. */
export const batchSummaryLineSchema = z.object({
  summary: z.object({ lines: z.number(), accepted: z.number(), rejected: z.number() }),
});

/** The last line of a batch that stopped: the lines after `afterLine` were not accepted. */
export const batchAbortedLineSchema = errorBodySchema.extend({
  aborted: z.literal(true),
  afterLine: z.number(),
});

/**
 * `POST /v1/messages/batch` answers NDJSON: one accepted or rejected line per non-empty request line, in
 * line order, then a summary line (or an aborted line).
 */
export const batchAnswerLineSchema = z.union([
  batchAcceptedLineSchema,
  batchRejectedLineSchema,
  batchSummaryLineSchema,
  batchAbortedLineSchema,
]);

/**
 * `POST /v1/sequences/:id/enrollments/batch` answers NDJSON the same way, an accepted line being the
 * enrollment with its line number.
 */
export const enrollmentBatchAnswerLineSchema = z.union([
  enrollmentViewSchema.extend({ line: z.number(), ok: z.literal(true) }),
  batchRejectedLineSchema,
  batchSummaryLineSchema,
  batchAbortedLineSchema,
]);

export type BatchAcceptedLine = z.output<typeof batchAcceptedLineSchema>;
