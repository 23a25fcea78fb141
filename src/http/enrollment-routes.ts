import type { Request, Router } from 'express';
import { enrollmentRequestSchema } from '../contract';
import { NotFoundError } from '../errors';
import { assertEnrollable, type EnrollmentRequest, enrollThroughApi } from '../sequences/enroll-api';
import { findSequence, type Sequence } from '../store/sequence-store';
import { parseInput } from '../validation';
import { jsonBody } from './json-body';
import { streamNdjsonBatch } from './ndjson-stream';
import { uuidParam } from './uuid-param';
import { usesAccount } from './key-access';
import type { V1Deps } from './v1-deps';

/** One enrollment request, or a 400 naming every bad field. */
function parseEnrollment(body: unknown): EnrollmentRequest {
  return parseInput(enrollmentRequestSchema, jsonBody(body), 'invalid enrollment');
}

/**
 * `POST /v1/sequences/:id/enrollments` (one follower, `201`, or `200` for a repeat) and
 * `…/enrollments/batch` (NDJSON, one request per line, answered per line; for 200,000 at once with bounded
 * memory, a chunk of lines per transaction). Registered on the sequences router before its `/:id/:action`.
 */
export function addEnrollmentRoutes(router: Router, deps: V1Deps): void {
  const known = async (req: Request): Promise<Sequence> => {
    const id = uuidParam(req.params.id, 'sequence');
    const sequence = await findSequence(deps.pool, id);
    if (!sequence || !usesAccount(req, sequence.appId)) throw new NotFoundError(`sequence ${id}`);
    return sequence;
  };

  router.post('/:id/enrollments', async (req, res) => {
    const sequence = await known(req);
    const [answer] = await enrollThroughApi(deps, sequence, [parseEnrollment(req.body)], req.requestId);
    if (answer instanceof Error) throw answer;
    res.status(answer.created ? 201 : 200).json(answer);
  });

  router.post('/:id/enrollments/batch', async (req, res) => {
    const sequence = await known(req);
    assertEnrollable(sequence);
    await streamNdjsonBatch(
      {
        parse: parseEnrollment,
        accept: (requests) => enrollThroughApi(deps, sequence, requests, req.requestId),
      },
      req,
      res,
      deps.logger,
    );
  });
}
