import { z } from 'zod';
import { SEQUENCE_ACTIONS, sequenceListQuerySchema } from '..';
import { NDJSON, type Operation, operationsOf } from './operation';

const params = z.object({ id: z.string().describe('A sequence id (a UUID).') });
const op = operationsOf('sequences');
const SEQUENCE = [200, 'The sequence.', 'Sequence'] as const;

/** `/v1/sequences…`: marketing's drip sequences. */
export const SEQUENCE_OPERATIONS: readonly Operation[] = [
  op(
    'get /v1/sequences',
    'listSequences',
    "The sequences, or one account's, a page at a time",
    [200, 'A page of sequences, newest first, and the cursor of the next.', 'SequenceList'],
    [400],
    { query: sequenceListQuerySchema },
  ),
  op(
    'post /v1/sequences',
    'createSequence',
    'Create a sequence, as a draft or active',
    [201, 'The sequence.', 'Sequence'],
    [400, 413],
    { body: 'SequenceCreateRequest' },
  ),
  op(
    'post /v1/sequences/validate',
    'validateSequence',
    'Check a definition without saving it',
    [200, 'It would be accepted.', 'SequenceValid'],
    [400, 413],
    { body: 'SequenceDefinition' },
  ),
  op('get /v1/sequences/:id', 'getSequence', 'A sequence, with its steps still to send', SEQUENCE, [404], {
    params,
  }),
  op(
    'put /v1/sequences/:id',
    'updateSequence',
    'Save a new version of a sequence (followers already enrolled keep theirs)',
    SEQUENCE,
    [400, 404, 409, 413],
    { params, body: 'SequenceDefinition' },
  ),
  op(
    'get /v1/sequences/:id/results',
    'getSequenceResults',
    "A sequence's outcomes per step, and per minute over the last 24 hours",
    [200, 'The results.', 'SequenceResults'],
    [404],
    { params },
  ),
  op(
    'post /v1/sequences/:id/enrollments',
    'enrollFollower',
    'Enroll a follower now, with variables for the steps ({{name}}, {{name|默认值}})',
    {
      201: { description: 'Enrolled: the enrollment and its scheduled steps.', schema: 'Enrollment' },
      200: { description: 'A repeat: the enrollment there is (`created: false`).', schema: 'Enrollment' },
    },
    [400, 404, 409, 413],
    { params, body: 'EnrollmentRequest' },
  ),
  op(
    'post /v1/sequences/:id/enrollments/batch',
    'enrollFollowersBatch',
    'Enroll many followers: NDJSON, one enrollment request per line, answered per line',
    {
      200: {
        description: 'One line per request line, in order, then a summary line.',
        schema: 'EnrollmentBatchAnswerLine',
        mediaType: NDJSON,
      },
    },
    [404, 409],
    { params, body: { schema: 'EnrollmentRequest', mediaType: NDJSON } },
  ),
  op(
    'post /v1/sequences/:id/test-send',
    'testSendStep',
    'Send one step to one follower, now',
    [201, 'The message.', 'Message'],
    [400, 404, 413],
    { params, body: 'TestSendRequest' },
  ),
  op(
    'post /v1/sequences/:id/duplicate',
    'duplicateSequence',
    'Copy a sequence (its current version) as a new draft, version 1, with no enrollments',
    [201, 'The copy.', 'Sequence'],
    [400, 404, 409, 413],
    { params, body: { schema: 'SequenceDuplicateRequest', optional: true } },
  ),
  op(
    'delete /v1/sequences/:id',
    'deleteSequence',
    'Delete a draft, or an archived sequence that never enrolled anyone (409 otherwise: archive it first, or keep it as history)',
    [200, 'Deleted.', 'SequenceDeleted'],
    [404, 409],
    { params },
  ),
  op(
    'post /v1/sequences/:id/:action',
    'changeSequenceStatus',
    "Change a sequence's status; pausing or archiving cancels its pending steps",
    SEQUENCE,
    [404, 409],
    {
      params: params.extend({ action: z.enum(SEQUENCE_ACTIONS).describe('The change.') }),
    },
  ),
];
