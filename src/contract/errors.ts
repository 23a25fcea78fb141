import { z } from 'zod';

/** One problem in a request, as a validation error's `details` lists them: `path` is dot-joined. */
export const errorDetailSchema = z.object({ path: z.string(), message: z.string() });

/**
 * Every error answer: `{ error: { code, message, details?, requestId? } }`; `details` lists problems on
 * 400s; a 5xx says only its code (`internal`, or a 503's) and the request id that finds it in the log.
 */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
    requestId: z.string().optional(),
  }),
});

export type ErrorDetail = z.output<typeof errorDetailSchema>;
export type ErrorBody = z.output<typeof errorBodySchema>;
