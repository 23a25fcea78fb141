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
export type MediaType = typeof JSON_TYPE | typeof NDJSON;

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
  /** The request body (default JSON). */
  readonly body?: { readonly schema: RequestSchemaName; readonly mediaType?: MediaType };
  readonly answers: Readonly<Record<number, Answer>>;
  readonly errors: readonly ErrorStatus[];
  /** Answered without the bearer token. */
  readonly public?: true;
}
