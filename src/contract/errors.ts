import { z } from 'zod';

/** One problem in a request, as a validation error's `details` lists them: `path` is dot-joined. */
export const errorDetailSchema = z.object({ path: z.string(), message: z.string() });

/** Every error answer: `{ error: { code, message, details? } }`; `details` lists problems on 400s. */
export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

export type ErrorDetail = z.output<typeof errorDetailSchema>;
export type ErrorBody = z.output<typeof errorBodySchema>;
