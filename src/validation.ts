import type { z } from 'zod';
import { ValidationError } from './errors';

/** One problem in an input, as ValidationError details carry it. */
export interface IssueDetail {
  readonly path: string;
  readonly message: string;
}

const withArticle = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/**
 * Parse-time messages for the issues zod words for programmers ("Invalid input: expected string,
 * received undefined"); messages set on a schema itself take precedence over these.
 */
export const readableIssue: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type') {
    return issue.input === undefined ? 'is required' : `must be ${withArticle(issue.expected)}`;
  }
  return undefined;
};

/**
 * Flattens a ZodError into `{ path, message }` details, paths dot-joined under `prefix`. Unknown fields
 * get one detail each, at their own path, worded by `unknownFields` when it has a message for the key.
 */
export function zodIssueDetails(
  error: z.ZodError,
  prefix: string,
  unknownFields: Readonly<Record<string, string>> = {},
): IssueDetail[] {
  const join = (path: readonly PropertyKey[]): string =>
    [prefix, ...path.map(String)].filter((p) => p !== '').join('.') || '(root)';
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: join([...issue.path, key]),
          // Own properties only: a field named `toString` must not read Object.prototype's.
          message: Object.hasOwn(unknownFields, key) ? unknownFields[key] : 'is not a known field',
        }))
      : [{ path: join(issue.path), message: issue.message }],
  );
}

/**
 * `input` parsed by `schema`, or the 400 every route answers for bad input: a ValidationError whose
 * `details` name each problem (`zodIssueDetails`: paths under `opts.prefix`, unknown fields worded by
 * `opts.unknownFields`; the first `opts.maxDetails` when a hostile input could make thousands), with
 * `message`, or the message `message` makes of the details. Nothing else is done with a bad input.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  message: string | ((details: readonly IssueDetail[]) => string),
  opts: {
    readonly prefix?: string;
    readonly unknownFields?: Readonly<Record<string, string>>;
    readonly maxDetails?: number;
  } = {},
): z.output<S> {
  const parsed = schema.safeParse(input, { error: readableIssue });
  if (parsed.success) return parsed.data;
  const details = zodIssueDetails(parsed.error, opts.prefix ?? '', opts.unknownFields).slice(
    0,
    opts.maxDetails,
  );
  throw new ValidationError(typeof message === 'string' ? message : message(details), details);
}
