import { z } from 'zod';
import { ACCOUNT_OPERATIONS } from './account-operations';
import { ANSWER_SCHEMAS, componentSchemas, type JsonSchema, REQUEST_SCHEMAS } from './components';
import { MESSAGE_OPERATIONS } from './message-operations';
import { type Answer, ERROR_STATUSES, JSON_TYPE, type Operation } from './operation';
import { SEQUENCE_OPERATIONS } from './sequence-operations';

/** Where the service answers this document; public, like the contract it describes. */
export const OPENAPI_PATH = '/v1/openapi.json';

const DOCUMENT_OPERATION: Operation = {
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: OPENAPI_PATH,
  tag: 'contract',
  summary: 'This document (no token needed)',
  answers: { 200: { description: 'The OpenAPI 3.1 document of /v1.', schema: 'OpenApiDocument' } },
  errors: [],
  public: true,
};

/** Every route of /v1. */
export const OPERATIONS: readonly Operation[] = [
  ...MESSAGE_OPERATIONS,
  ...ACCOUNT_OPERATIONS,
  ...SEQUENCE_OPERATIONS,
  DOCUMENT_OPERATION,
];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const PATH_PARAMETER = /:(\w+)/g;

/** `/v1/messages/:id` → `/v1/messages/{id}`. */
export const openApiPath = (expressPath: string): string => expressPath.replace(PATH_PARAMETER, '{$1}');

/** The parameters `schema` (an object) describes, one per field, `in` the path or the query string. */
function parameters(schema: z.ZodObject, where: 'path' | 'query') {
  const { properties = {}, required = [] } = z.toJSONSchema(schema, { io: 'input' });
  // An object's fields convert to schemas, never to the boolean schemas JSON Schema also allows.
  const fields = Object.entries(properties as Record<string, JsonSchema>);
  return fields.map(([name, { description, ...fieldSchema }]) => ({
    name,
    in: where,
    required: where === 'path' || required.includes(name),
    ...(description !== undefined ? { description } : {}),
    schema: fieldSchema,
  }));
}

/** The path parameters of `op`: a schema for each `:name` of its path, and no other. */
function pathParameters(op: Operation) {
  const names = [...op.path.matchAll(PATH_PARAMETER)].map((m) => m[1]);
  const described = Object.keys(op.params?.shape ?? {});
  if (names.join() !== described.join()) {
    throw new Error(
      `${op.method} ${op.path}: params describe [${described.join()}], the path has [${names.join()}]`,
    );
  }
  return op.params ? parameters(op.params, 'path') : [];
}

const answer = ({ description, schema, mediaType = JSON_TYPE }: Answer) => ({
  description,
  content: { [mediaType]: { schema: ref(schema) } },
});

function operation(op: Operation) {
  const errors = op.public ? op.errors : [401 as const, 403 as const, 429 as const, ...op.errors];
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.public ? { security: [] } : {}),
    parameters: [...pathParameters(op), ...(op.query ? parameters(op.query, 'query') : [])],
    ...(op.body
      ? {
          requestBody: {
            required: op.body.optional !== true,
            content: { [op.body.mediaType ?? JSON_TYPE]: { schema: ref(op.body.schema) } },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(Object.entries(op.answers).map(([status, a]) => [status, answer(a)])),
      ...Object.fromEntries(errors.map((status) => [status, { $ref: `#/components/responses/${status}` }])),
      default: { $ref: '#/components/responses/default' },
    },
  };
}

const errorResponse = (description: string) => ({
  description,
  content: { [JSON_TYPE]: { schema: ref('Error') } },
});

/** The OpenAPI 3.1 document of `operations` (every route of /v1), built from the contract's zod schemas. */
export function buildOpenApiDocument(operations: readonly Operation[] = OPERATIONS) {
  const paths: Record<string, Record<string, ReturnType<typeof operation>>> = {};
  for (const op of operations) (paths[openApiPath(op.path)] ??= {})[op.method] = operation(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'wechat-drip API',
      version: '1',
      description:
        'Timed follow-up messages for WeChat Official Accounts. Every route but this document needs `Authorization: Bearer <ADMIN_TOKEN>`, or an API key (`POST /v1/keys`) on the routes of its operations, for its accounts. Errors are `{ error: { code, message, details?, requestId? } }`, and a refused request writes nothing; a path with a trailing slash is a 404.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: {
        ...componentSchemas(REQUEST_SCHEMAS, 'input'),
        ...componentSchemas(ANSWER_SCHEMAS, 'output'),
      },
      responses: {
        ...Object.fromEntries(Object.entries(ERROR_STATUSES).map(([s, d]) => [s, errorResponse(d)])),
        401: errorResponse('The bearer token is missing or wrong (an API key: or revoked).'),
        403: errorResponse(
          'An API key on a route that takes the admin token, or without the operation the route needs (`forbidden`).',
        ),
        429: errorResponse(
          'This address sent too many wrong bearer tokens: every request from it waits `Retry-After` seconds.',
        ),
        default: errorResponse(
          'The service cannot answer now (503, a dependency is down: its code, `Retry-After`), or failed (500 `internal`); `requestId` finds it in the log.',
        ),
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The `ADMIN_TOKEN` the service runs with, or an API key (`wdk_…`).',
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
