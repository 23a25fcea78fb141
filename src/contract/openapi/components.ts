import { z } from 'zod';
import {
  auditListSchema,
  accountCheckSchema,
  templateLibrarySchema,
  qrCodeRequestSchema,
  qrCodeSchema,
  uploadedMediaSchema,
  accountCreateSchema,
  accountDeletedSchema,
  accountListSchema,
  accountPatchSchema,
  accountViewSchema,
  authorizationStartedSchema,
  authorizationStartSchema,
  batchAnswerLineSchema,
  cancelByIdsSchema,
  cancelByIdsViewSchema,
  cancellationSchema,
  cancellationViewSchema,
  enrollmentBatchAnswerLineSchema,
  enrollmentRequestSchema,
  enrollmentViewSchema,
  errorBodySchema,
  followerEventRequestSchema,
  followerEventViewSchema,
  followerTimelineSchema,
  messageDetailSchema,
  messageRequestSchema,
  messageViewSchema,
  createKeyRequestSchema,
  keyListSchema,
  keyViewSchema,
  createdKeySchema,
  platformViewSchema,
  quietHoursSchema,
  rescheduledByKeySchema,
  rescheduledMessageSchema,
  rescheduleRequestSchema,
  sequenceCreateSchema,
  sequenceDefinitionSchema,
  sequenceDeletedSchema,
  sequenceDuplicateSchema,
  sequenceListSchema,
  sequenceResultsSchema,
  sequenceValidSchema,
  sequenceViewSchema,
  testSendSchema,
} from '..';

/**
 * The request bodies, by the name the document gives them, described as a client writes them (a field with
 * a default may be left out).
 */
export const REQUEST_SCHEMAS = {
  MessageRequest: messageRequestSchema,
  RescheduleRequest: rescheduleRequestSchema,
  CancellationRequest: z.union([cancellationSchema, cancelByIdsSchema]),
  AccountCreateRequest: accountCreateSchema,
  AccountPatchRequest: accountPatchSchema,
  QrCodeRequest: qrCodeRequestSchema,
  /** The bytes of a PNG, JPEG, GIF or BMP image, at most 10 MB; its type in Content-Type. */
  Image: z.string().describe('The image file itself: PNG, JPEG, GIF or BMP, at most 10 MB.'),
  SequenceCreateRequest: sequenceCreateSchema,
  SequenceDefinition: sequenceDefinitionSchema,
  SequenceDuplicateRequest: sequenceDuplicateSchema,
  /** An account's default quiet hours, or a sequence's own (`false` there: none). */
  QuietHours: quietHoursSchema,
  TestSendRequest: testSendSchema,
  EnrollmentRequest: enrollmentRequestSchema,
  FollowerEventRequest: followerEventRequestSchema,
  AuthorizationStartRequest: authorizationStartSchema,
  KeyCreateRequest: createKeyRequestSchema,
} as const;

/** The answers, by name, described as the service writes them. */
export const ANSWER_SCHEMAS = {
  Message: messageViewSchema,
  MessageDetail: messageDetailSchema,
  RescheduledMessage: rescheduledMessageSchema,
  RescheduledByKey: rescheduledByKeySchema,
  BatchAnswerLine: batchAnswerLineSchema,
  Cancellation: cancellationViewSchema,
  CancelByIds: cancelByIdsViewSchema,
  FollowerTimeline: followerTimelineSchema,
  FollowerEvent: followerEventViewSchema,
  AccountList: accountListSchema,
  Account: accountViewSchema,
  AccountCheck: accountCheckSchema,
  TemplateLibrary: templateLibrarySchema,
  QrCode: qrCodeSchema,
  UploadedMedia: uploadedMediaSchema,
  AccountDeleted: accountDeletedSchema,
  AuditList: auditListSchema,
  KeyList: keyListSchema,
  Key: keyViewSchema,
  CreatedKey: createdKeySchema,
  SequenceList: sequenceListSchema,
  Sequence: sequenceViewSchema,
  SequenceValid: sequenceValidSchema,
  SequenceDeleted: sequenceDeletedSchema,
  SequenceResults: sequenceResultsSchema,
  Enrollment: enrollmentViewSchema,
  EnrollmentBatchAnswerLine: enrollmentBatchAnswerLineSchema,
  Platform: platformViewSchema,
  AuthorizationStarted: authorizationStartedSchema,
  Error: errorBodySchema,
  /** `GET /v1/openapi.json`: this document, an OpenAPI 3.1 object. */
  OpenApiDocument: z.record(z.string(), z.unknown()),
} as const;

export type RequestSchemaName = keyof typeof REQUEST_SCHEMAS;
export type AnswerSchemaName = keyof typeof ANSWER_SCHEMAS;

/** A JSON Schema (2020-12, OpenAPI 3.1's dialect) as zod writes it. */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/** The JSON Schemas of `schemas` under their names, one referring to another as `#/components/schemas/<name>`. */
export function componentSchemas(
  schemas: Readonly<Record<string, z.ZodType>>,
  io: 'input' | 'output',
): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const converted = z.toJSONSchema(registry, { io, uri: (id) => `#/components/schemas/${id}` }).schemas;
  return Object.fromEntries(
    // Each comes out as a document of its own, with a dialect and an id (its URI, a fragment: not a valid
    // `$id`); inside the OpenAPI document the dialect is implied and the component's name is its address.
    Object.entries(converted).map(([id, { $schema: _dialect, $id: _uri, ...schema }]) => [id, schema]),
  );
}
