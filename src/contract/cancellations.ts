import { z } from 'zod';
import { MAX_REASON_CHARS } from './messages';

/** Most message ids one `POST /v1/cancellations {ids}` may list. */
export const MAX_CANCEL_IDS = 10_000;

/**
 * A message id as the API hands it out: a UUID (any case; compared and answered in lower case). Spelled
 * without the `i` flag, which a JSON Schema `pattern` cannot carry.
 */
const MESSAGE_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A hostile list may repeat thousands of ids; the answer names the first few. */
const MAX_DUPLICATES_NAMED = 20;

/**
 * `POST /v1/cancellations` by message ids: each listed open message is cancelled. Ids may belong to any
 * account. A repeated id is refused (not merged), so that the answer has exactly one result per id listed.
 */
export const cancelByIdsSchema = z
  .object({
    ids: z
      .array(z.string().regex(MESSAGE_ID, 'must be a message id (a UUID)').toLowerCase())
      .min(1, 'must list at least one message id')
      .max(MAX_CANCEL_IDS, `must list at most ${MAX_CANCEL_IDS} message ids`)
      .superRefine((ids, ctx) => {
        const first = new Map<string, number>();
        let named = 0;
        ids.forEach((id, i) => {
          const seen = first.get(id);
          if (seen === undefined) first.set(id, i);
          else if (named++ < MAX_DUPLICATES_NAMED) {
            ctx.addIssue({ code: 'custom', path: [i], message: `repeats ids.${seen}; list each id once` });
          }
        });
      }),
    reason: z.string().min(1).max(MAX_REASON_CHARS),
  })
  .strict();

/** What a cancellation by ids did with one id. */
export const CANCEL_OUTCOMES = ['cancelled', 'already_cancelled', 'not_cancellable', 'not_found'] as const;

/**
 * One id's result: `cancelled` (this request stopped it: it will never be sent), `already_cancelled`,
 * `not_cancellable` (being sent, or finished: `status` says which) or `not_found`. `status` is the
 * message's status after the request, for every id that exists.
 */
export const cancelResultSchema = z.object({
  id: z.string(),
  outcome: z.enum(CANCEL_OUTCOMES),
  status: z.string().optional(),
});

/** The answer to `POST /v1/cancellations {ids}`: a count per outcome, and one result per id in list order. */
export const cancelByIdsViewSchema = z.object({
  cancelled: z.number(),
  alreadyCancelled: z.number(),
  notCancellable: z.number(),
  notFound: z.number(),
  results: z.array(cancelResultSchema),
});

export type CancelResult = z.output<typeof cancelResultSchema>;
export type CancelByIdsView = z.output<typeof cancelByIdsViewSchema>;
