import { z } from 'zod';
import { cancelQuerySchema } from '..';
import { APP_ID_PARAMETER, NDJSON, type Operation, operationsOf } from './operation';

const params = z.object({ id: z.string().describe('A message id (a UUID).') });
const followerParams = z.object({
  appId: APP_ID_PARAMETER,
  openid: z.string().describe("The follower's openid."),
});
const message = operationsOf('messages');
const cancellation = operationsOf('cancellations');
const follower = operationsOf('followers');

/** `/v1/messages…`, `/v1/cancellations` and `/v1/followers…`. */
export const MESSAGE_OPERATIONS: readonly Operation[] = [
  message(
    'post /v1/messages',
    'scheduleMessage',
    'Schedule one message',
    {
      201: { description: 'Scheduled.', schema: 'Message' },
      200: {
        description: 'The message an earlier request with this `idempotencyKey` made.',
        schema: 'Message',
      },
    },
    [400, 409, 413],
    { body: 'MessageRequest' },
  ),
  message(
    'post /v1/messages/batch',
    'scheduleMessages',
    'Schedule many messages: one request per NDJSON line, each accepted or refused on its own',
    {
      200: {
        description:
          'One line per non-empty request line, in line order, streamed as they are decided; then a summary line, or an aborted line if the batch stopped.',
        schema: 'BatchAnswerLine',
        mediaType: NDJSON,
      },
    },
    [],
    { body: { schema: 'MessageRequest', mediaType: NDJSON } },
  ),
  message(
    'get /v1/messages/:id',
    'getMessage',
    'A message, its status and its delivery attempts',
    [200, 'The message.', 'MessageDetail'],
    [404],
    { params },
  ),
  message(
    'put /v1/messages/:id',
    'rescheduleMessage',
    'Move an open message: a replacement is scheduled and the old one cancelled',
    [201, 'The replacement.', 'RescheduledMessage'],
    [400, 404, 409, 413],
    { params, body: 'RescheduleRequest' },
  ),
  message(
    'delete /v1/messages/:id',
    'cancelMessage',
    'Cancel an open message',
    [200, 'The cancelled message.', 'Message'],
    [400, 404, 409],
    { params, query: cancelQuerySchema },
  ),
  message(
    'put /v1/messages/by-key/:appId/:cancelKey',
    'rescheduleByKey',
    "Move a reminder: cancel the key's open messages and schedule the new one with the key",
    [201, 'The new message.', 'RescheduledByKey'],
    [400, 413],
    {
      params: z.object({
        appId: APP_ID_PARAMETER,
        cancelKey: z.string().describe('The cancel key of the messages to replace.'),
      }),
      body: 'RescheduleRequest',
    },
  ),
  cancellation(
    'post /v1/cancellations',
    'cancelMessages',
    'Cancel every open message of a cancel key or of a follower, or up to 10,000 messages by id',
    {
      201: { description: 'By cancel key or follower: the ledger row.', schema: 'Cancellation' },
      200: { description: 'By ids: one result per id, in list order.', schema: 'CancelByIds' },
    },
    [400, 413],
    { body: 'CancellationRequest' },
  ),
  follower(
    'get /v1/followers/:appId/:openid',
    'getFollowerTimeline',
    'Everything stored about one follower, newest first',
    [200, 'The timeline.', 'FollowerTimeline'],
    [404],
    { params: followerParams },
  ),
  follower(
    'post /v1/followers/:appId/:openid/events',
    'postFollowerEvent',
    'Another system says the follower did something: ends the enrollments it exits, starts its event sequences',
    {
      201: { description: 'Recorded: what it ended and what it started.', schema: 'FollowerEvent' },
      200: { description: 'A repeated idempotency key: the first answer.', schema: 'FollowerEvent' },
    },
    [400, 404, 409, 413],
    { params: followerParams, body: 'FollowerEventRequest' },
  ),
];
