import { z } from 'zod';

/**
 * What a problem broke, for a client that words it in its own language (the admin page's Chinese):
 * `kind` is stable across releases and the other fields are its parameters, e.g.
 * `{ kind: 'too_small', origin: 'string', minimum: 1, inclusive: true }`. docs/api.md lists the kinds.
 */
export const errorRuleSchema = z.looseObject({ kind: z.string() });

/**
 * One problem in a request, as a validation error's `details` lists them: `path` is dot-joined, `message`
 * is English for people, `rule` (when the service knows it) the same for programs.
 */
export const errorDetailSchema = z.object({
  path: z.string(),
  message: z.string(),
  rule: errorRuleSchema.optional(),
});

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

export type ErrorRule = z.output<typeof errorRuleSchema>;
export type ErrorDetail = z.output<typeof errorDetailSchema>;
export type ErrorBody = z.output<typeof errorBodySchema>;
