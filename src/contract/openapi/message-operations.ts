import { z } from 'zod';
import { cancelQuerySchema } from '..';
import { APP_ID_PARAMETER, NDJSON, type Operation } from './operation';

const messageId = z.object({ id: z.string().describe('A message id (a UUID).') });

/** `/v1/messages…`, `/v1/cancellations` and `/v1/followers…`. */
export const MESSAGE_OPERATIONS: readonly Operation[] = [
  {
    operationId: 'scheduleMessage',
    method: 'post',
    path: '/v1/messages',
    tag: 'messages',
    summary: 'Schedule one message',
    body: { schema: 'MessageRequest' },
    answers: {
      201: { description: 'Scheduled.', schema: 'Message' },
      200: {
        description: 'The message an earlier request with this `idempotencyKey` made.',
        schema: 'Message',
      },
    },
    errors: [400, 409, 413],
  },
  {
    operationId: 'scheduleMessages',
    method: 'post',
    path: '/v1/messages/batch',
    tag: 'messages',
    summary: 'Schedule many messages: one request per NDJSON line, each accepted or refused on its own',
    body: { schema: 'MessageRequest', mediaType: NDJSON },
    answers: {
      200: {
        description:
          'One line per non-empty request line, in line order, streamed as they are decided; then a summary line, or an aborted line if the batch stopped.',
        schema: 'BatchAnswerLine',
        mediaType: NDJSON,
      },
    },
    errors: [],
  },
  {
    operationId: 'getMessage',
    method: 'get',
    path: '/v1/messages/:id',
    tag: 'messages',
    summary: 'A message, its status and its delivery attempts',
    params: messageId,
    answers: { 200: { description: 'The message.', schema: 'MessageDetail' } },
    errors: [404],
  },
  {
    operationId: 'rescheduleMessage',
    method: 'put',
    path: '/v1/messages/:id',
    tag: 'messages',
    summary: 'Move an open message: a replacement is scheduled and the old one cancelled',
    params: messageId,
    body: { schema: 'RescheduleRequest' },
    answers: { 201: { description: 'The replacement.', schema: 'RescheduledMessage' } },
    errors: [400, 404, 409, 413],
  },
  {
    operationId: 'cancelMessage',
    method: 'delete',
    path: '/v1/messages/:id',
    tag: 'messages',
    summary: 'Cancel an open message',
    params: messageId,
    query: cancelQuerySchema,
    answers: { 200: { description: 'The cancelled message.', schema: 'Message' } },
    errors: [400, 404, 409],
  },
  {
    operationId: 'rescheduleByKey',
    method: 'put',
    path: '/v1/messages/by-key/:appId/:cancelKey',
    tag: 'messages',
    summary: "Move a reminder: cancel the key's open messages and schedule the new one with the key",
    params: z.object({
      appId: APP_ID_PARAMETER,
      cancelKey: z.string().describe('The cancel key of the messages to replace.'),
    }),
    body: { schema: 'RescheduleRequest' },
    answers: { 201: { description: 'The new message.', schema: 'RescheduledByKey' } },
    errors: [400, 413],
  },
  {
    operationId: 'cancelMessages',
    method: 'post',
    path: '/v1/cancellations',
    tag: 'cancellations',
    summary: 'Cancel every open message of a cancel key or of a follower, or up to 10,000 messages by id',
    body: { schema: 'CancellationRequest' },
    answers: {
      201: { description: 'By cancel key or follower: the ledger row.', schema: 'Cancellation' },
      200: { description: 'By ids: one result per id, in list order.', schema: 'CancelByIds' },
    },
    errors: [400, 413],
  },
  {
    operationId: 'getFollowerTimeline',
    method: 'get',
    path: '/v1/followers/:appId/:openid',
    tag: 'followers',
    summary: 'Everything stored about one follower, newest first',
    params: z.object({
      appId: APP_ID_PARAMETER,
      openid: z.string().describe("The follower's openid."),
    }),
    answers: { 200: { description: 'The timeline.', schema: 'FollowerTimeline' } },
    errors: [404],
  },
  {
    operationId: 'postFollowerEvent',
    method: 'post',
    path: '/v1/followers/:appId/:openid/events',
    tag: 'followers',
    summary:
      'Another system says the follower did something: ends the enrollments it exits, starts its event sequences',
    params: z.object({
      appId: APP_ID_PARAMETER,
      openid: z.string().describe("The follower's openid."),
    }),
    body: { schema: 'FollowerEventRequest' },
    answers: {
      201: { description: 'Recorded: what it ended and what it started.', schema: 'FollowerEvent' },
      200: { description: 'A repeated idempotency key: the first answer.', schema: 'FollowerEvent' },
    },
    errors: [400, 404, 409, 413],
  },
];
