import { validate } from '@readme/openapi-parser';
import { z } from 'zod';
import { buildOpenApiDocument, OPERATIONS } from '../../../src/contract/openapi/build-document';
import type { Operation } from '../../../src/contract/openapi/operation';

// Read loosely: the assertions are what check its shape.
const document: any = buildOpenApiDocument();
const schemas = document.components.schemas;

describe('the OpenAPI document of /v1', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    // The validator dereferences the document it is given: a copy keeps this one as built.
    const result = await validate(structuredClone(document));
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes a request as a client writes it: a field with a default may be left out, an unknown one is refused', () => {
    const request = schemas.MessageRequest;
    expect([...request.required].sort()).toEqual(['appId', 'message', 'openid']);
    expect(request.properties.channel).toMatchObject({
      enum: ['custom', 'template', 'notice'],
      default: 'custom',
    });
    expect(request.additionalProperties).toBe(false);
    expect(request.description).toContain('not both');
  });

  it('keeps what a pattern accepts: a cancellation lists message ids in any case, as the route takes them', () => {
    const byIds = schemas.CancellationRequest.anyOf.find((s: any) => s.properties.ids);
    const pattern = new RegExp(byIds.properties.ids.items.pattern);
    expect(pattern.test('0B7C4A52-1111-4222-8333-944455556666')).toBe(true);
    expect(pattern.test('not-a-message-id')).toBe(false);
  });

  it('describes an answer as the service writes it, referring to the schemas it is made of', () => {
    expect(schemas.Message.required).toEqual(expect.arrayContaining(['id', 'channel', 'status', 'dueAt']));
    expect(schemas.AccountList.properties.accounts.items).toEqual({ $ref: '#/components/schemas/Account' });
    expect(schemas.Account.properties).not.toHaveProperty('secret');
  });

  it('gives POST /v1/messages its body, its answers and the error shape', () => {
    const post = document.paths['/v1/messages'].post;
    expect(post.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/MessageRequest',
    });
    expect(Object.keys(post.responses).sort()).toEqual([
      '200',
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '429',
      'default',
    ]);
    expect(post.responses[400]).toEqual({ $ref: '#/components/responses/400' });
    expect(document.components.responses[400].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });

  it('describes the NDJSON batch line by line, both ways', () => {
    const batch = document.paths['/v1/messages/batch'].post;
    expect(batch.requestBody?.content['application/x-ndjson'].schema).toEqual({
      $ref: '#/components/schemas/MessageRequest',
    });
    expect(batch.responses[200]).toMatchObject({
      content: { 'application/x-ndjson': { schema: { $ref: '#/components/schemas/BatchAnswerLine' } } },
    });
  });

  it('names path and query parameters with their schemas', () => {
    const cancel = document.paths['/v1/messages/{id}'].delete;
    expect(cancel.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true, schema: { type: 'string' } }),
      expect.objectContaining({
        name: 'reason',
        in: 'query',
        required: false,
        schema: { type: 'string', maxLength: 500 },
      }),
    ]);
    const action = document.paths['/v1/sequences/{id}/{action}'].post.parameters[1];
    expect(action).toMatchObject({
      name: 'action',
      schema: { enum: ['activate', 'pause', 'resume', 'archive'] },
    });
  });

  it('pages GET /v1/sequences: `limit` and `cursor` in, the next page’s cursor out', () => {
    const list = document.paths['/v1/sequences'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(['appId', 'limit', 'cursor']);
    expect(list.parameters[1].schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
    expect(schemas.SequenceList.required).toEqual(['sequences', 'next']);
  });

  it('lists 429 (failed tokens throttled) beside 401, and a request id in the error shape', () => {
    expect(document.paths['/v1/messages'].post.responses[429]).toEqual({
      $ref: '#/components/responses/429',
    });
    expect(schemas.Error.properties.error.properties).toHaveProperty('requestId');
  });

  it('asks for the bearer token everywhere but on the document itself', () => {
    expect(document.security).toEqual([{ bearer: [] }]);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/v1/openapi.json'].get).toMatchObject({ security: [] });
    expect(document.paths['/v1/accounts'].get).not.toHaveProperty('security');
    expect(document.paths['/v1/accounts'].get.responses).toHaveProperty('401');
  });

  it('refuses an operation whose parameters are not the ones its path names', () => {
    const wrong: Operation = {
      ...OPERATIONS.find((op) => op.path === '/v1/messages/:id')!,
      params: z.object({ messageId: z.string() }),
    };
    expect(() => buildOpenApiDocument([wrong])).toThrow('params describe [messageId], the path has [id]');
  });
});
