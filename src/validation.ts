import type { z } from 'zod';

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
