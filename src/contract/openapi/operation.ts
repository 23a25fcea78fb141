import { z } from 'zod';
import type { AnswerSchemaName, RequestSchemaName } from './components';

/** The error answers an operation lists besides 401 (every route behind the token) and 5xx. */
export const ERROR_STATUSES = {
  400: 'The request is invalid; nothing was written. `details` lists each problem as `{path, message}`.',
  404: 'No such resource.',
  409: 'The request conflicts with the current state; nothing was written.',
  413: 'The body is larger than the route accepts.',
} as const;
export type ErrorStatus = keyof typeof ERROR_STATUSES;

export const JSON_TYPE = 'application/json';
/** One JSON document per line: the schema of a body or answer of this type is that of each line. */
export const NDJSON = 'application/x-ndjson';
/** A file sent as it is, its type in the Content-Type header (an image upload). */
export const IMAGE = 'image/*';
export type MediaType = typeof JSON_TYPE | typeof NDJSON | typeof IMAGE;

export interface Answer {
  readonly description: string;
  readonly schema: AnswerSchemaName;
  /** Default JSON. */
  readonly mediaType?: MediaType;
}

/** The `:appId` of a path. */
export const APP_ID_PARAMETER = z.string().describe("The account's AppID.");

/** One route of the API, as the document describes it. */
export interface Operation {
  /** Unique in the document; Swagger UI links to the operation by it. */
  readonly operationId: string;
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path as the express router matches it, `:name` for each parameter. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  /** One schema per path parameter, named as in `path`. */
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** The request body (default JSON); `optional`: the request may come without one. */
  readonly body?: {
    readonly schema: RequestSchemaName;
    readonly mediaType?: MediaType;
    readonly optional?: true;
  };
  readonly answers: Readonly<Record<number, Answer>>;
  readonly errors: readonly ErrorStatus[];
  /** Answered without the bearer token. */
  readonly public?: true;
}

/** The one answer most operations have: `[status, description, schema]`. */
type OneAnswer = readonly [number, string, AnswerSchemaName];

/** What some operations say besides their route, summary, answers and errors. */
export type OperationExtras = Pick<Operation, 'params' | 'query' | 'public'> & {
  /** A JSON body may be given by its schema name alone. */
  readonly body?: RequestSchemaName | Operation['body'];
};

/**
 * The builder of one tag's operations, each written once, in the words that differ from the others':
 * `op('get /v1/accounts/:appId', 'getAccount', 'One account', [200, 'The account.', 'Account'], [404], { params })`.
 */
export function operationsOf(tag: string) {
  return (
    route: `${Operation['method']} /${string}`,
    operationId: string,
    summary: string,
    answers: Operation['answers'] | OneAnswer,
    errors: readonly ErrorStatus[],
    { body, ...extras }: OperationExtras = {},
  ): Operation => {
    const [method, path] = route.split(' ') as [Operation['method'], string];
    return {
      operationId,
      method,
      path,
      tag,
      summary,
      ...extras,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? { schema: body } : body }),
      answers: isOneAnswer(answers)
        ? { [answers[0]]: { description: answers[1], schema: answers[2] } }
        : answers,
      errors,
    };
  };
}

const isOneAnswer = (answers: Operation['answers'] | OneAnswer): answers is OneAnswer =>
  Array.isArray(answers);
