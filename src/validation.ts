import type { z } from 'zod';
import type { ErrorRule } from './contract/errors';
import { ValidationError } from './errors';

/** One problem in an input, as ValidationError details carry it: English for people, the rule for programs. */
export interface IssueDetail {
  readonly path: string;
  readonly message: string;
  readonly rule?: ErrorRule;
}

/** A zod issue as the error map sees it (with its input) or as a parse reports it (with `reportInput`). */
type AnyIssue = z.core.$ZodRawIssue | z.core.$ZodIssue;

const number = (n: number | bigint): number => Number(n);

/**
 * The rule a zod issue broke. A refinement names its own with `params: { rule: '<kind>', …parameters }`;
 * one that does not is `invalid`, as is any issue zod may add later.
 */
export function ruleOf(issue: AnyIssue): ErrorRule {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? { kind: 'required' } : { kind: 'type', expected: issue.expected };
    case 'too_small':
      return {
        kind: 'too_small',
        origin: issue.origin,
        minimum: number(issue.minimum),
        inclusive: issue.inclusive !== false,
      };
    case 'too_big':
      return {
        kind: 'too_big',
        origin: issue.origin,
        maximum: number(issue.maximum),
        inclusive: issue.inclusive !== false,
      };
    case 'invalid_value':
      return { kind: 'one_of', values: issue.values.map((v) => (typeof v === 'bigint' ? Number(v) : v)) };
    case 'invalid_format':
      return { kind: 'format', format: issue.format };
    case 'not_multiple_of':
      return { kind: 'multiple_of', divisor: number(issue.divisor) };
    case 'unrecognized_keys':
      return { kind: 'unknown_field' };
    case 'custom': {
      const { rule, ...params } = (issue.params ?? {}) as Record<string, unknown>;
      return typeof rule === 'string' ? { ...params, kind: rule } : { kind: 'invalid' };
    }
    default:
      return { kind: 'invalid' };
  }
}

const withArticle = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
const quoted = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : String(v));

/** The English for the rules zod words for programmers ("Too small: expected string to have >=1 characters"). */
function englishRule(rule: ErrorRule): string | undefined {
  const { origin } = rule;
  const text = origin === 'string';
  const list = origin === 'array' || origin === 'set';
  switch (rule.kind) {
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${withArticle(String(rule.expected))}`;
    case 'too_small': {
      const min = Number(rule.minimum);
      if ((text || list) && min === 1) return 'must not be empty';
      if (text) return `must be at least ${min} characters long`;
      if (list) return `must have at least ${min} items`;
      return rule.inclusive ? `must be at least ${min}` : `must be greater than ${min}`;
    }
    case 'too_big': {
      const max = Number(rule.maximum);
      if (text) return `must be at most ${max} characters long`;
      if (list) return `must have at most ${max} items`;
      return rule.inclusive ? `must be at most ${max}` : `must be less than ${max}`;
    }
    case 'one_of': {
      const values = rule.values as readonly unknown[];
      return values.length === 1
        ? `must be ${quoted(values[0])}`
        : `must be one of: ${values.map(quoted).join(', ')}`;
    }
    case 'format':
      if (rule.format === 'url') return 'must be a URL';
      if (rule.format === 'email') return 'must be an email address';
      return rule.format === 'regex'
        ? 'is not in the expected format'
        : `must be a valid ${String(rule.format)}`;
    case 'multiple_of':
      return `must be a multiple of ${String(rule.divisor)}`;
    default:
      return undefined;
  }
}

/**
 * Parse-time messages for the issues zod words for programmers; messages set on a schema itself take
 * precedence over these.
 */
export const readableIssue: z.core.$ZodErrorMap = (issue) => englishRule(ruleOf(issue));

/**
 * Flattens a ZodError into `{ path, message, rule }` details, paths dot-joined under `prefix`. Unknown
 * fields get one detail each, at their own path, worded by `unknownFields` when it has a message for the key.
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
          rule: { kind: 'unknown_field' },
        }))
      : [{ path: join(issue.path), message: issue.message, rule: ruleOf(issue) }],
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
  // The input is reported so that `ruleOf` tells a missing field from one of the wrong type.
  const parsed = schema.safeParse(input, { error: readableIssue, reportInput: true });
  if (parsed.success) return parsed.data;
  const details = zodIssueDetails(parsed.error, opts.prefix ?? '', opts.unknownFields).slice(
    0,
    opts.maxDetails,
  );
  throw new ValidationError(typeof message === 'string' ? message : message(details), details);
}
