import { Router } from 'express';
import { API_ACTOR } from '../store/ledger';
import { NotFoundError, ValidationError } from '../errors';
import { cancelByTarget } from '../scheduling/cancel';
import { createPerAccountQueue } from '../scheduling/per-account-queue';
import { createCancelBatcher } from '../scheduling/cancel-batcher';
import { cancelByIds } from './cancel-by-ids';
import { findMessage, listAttempts } from '../store/message-store';
import { parseScheduleRequest } from '../scheduling/schedule-request';
import { parseInput } from '../validation';
import { rescheduleByKey, rescheduleMessage } from '../scheduling/reschedule';
import {
  cancellationSchema,
  cancelQuerySchema,
  type CancellationView,
  type RescheduledByKey,
  type RescheduledMessage,
  rescheduleRequestSchema,
} from '../contract';
import { createAccountRouter } from './account-routes';
import { messageDetailView, messageView } from './message-view';
import { createSequenceRouter } from './sequence-routes';
import { createFollowerRouter } from './follower-routes';
import { createAuditRouter } from './audit-routes';
import { createKeyRouter } from './key-routes';
import { jsonBody } from './json-body';
import { handleNdjsonBatch } from './ndjson-batch';
import { createScheduleContext } from './post-message';
import { uuidParam } from './uuid-param';
import { guardBodyAndQuery, guardPathEncoding, guardPathParams } from './input-guard';
import { usesAccount, visibleAccounts } from './key-access';
import { accountsOfMessages } from '../store/cancel-by-ids';
import type { V1Deps } from './v1-deps';

/**
 * A reschedule's body, once it names the new time and holds only request fields. The body itself is
 * returned, not the parsed value: the request it is merged into is parsed whole, and defaults filled in
 * here would overwrite the old message's fields.
 */
function rescheduleBody(raw: unknown): Record<string, unknown> {
  const body = jsonBody(raw);
  parseInput(rescheduleRequestSchema, body, 'invalid reschedule');
  return body as Record<string, unknown>;
}

const messageId = (raw: string | string[] | undefined): string => uuidParam(raw, 'message');

/**
 * `/v1/messages…` (but `POST /v1/messages`, routed ahead: create-app), `/v1/cancellations`,
 * `/v1/sequences…`, `/v1/accounts…` and `/v1/followers…`: thin adapters from HTTP to the use cases.
 */
export function createV1Router(deps: V1Deps): Router {
  const router = Router();
  const appIds = { has: (appId: string) => deps.accounts.get(appId) !== undefined };
  const cancelMessage = createCancelBatcher(deps.pool);
  const oneAtATime = createPerAccountQueue();
  const contextFor = createScheduleContext(deps);

  router.use(guardPathEncoding, guardBodyAndQuery);
  guardPathParams(router, ['appId', 'cancelKey', 'id']);
  router.use('/sequences', createSequenceRouter(deps));
  router.post('/messages/batch', (req, res) => handleNdjsonBatch(deps, contextFor, req, res));

  router.use('/accounts', createAccountRouter(deps));
  router.use('/followers', createFollowerRouter(deps));
  router.use('/audit', createAuditRouter(deps));
  router.use('/keys', createKeyRouter(deps));

  // Move a reminder: by id (the replacement inherits what the body does not say) or by cancel key.
  router.put('/messages/by-key/:appId/:cancelKey', async (req, res) => {
    const body = rescheduleBody(req.body);
    const input = {
      ...parseScheduleRequest(
        { ...body, appId: req.params.appId, cancelKey: req.params.cancelKey },
        contextFor(req.principal),
      ),
      requestId: req.requestId,
    };
    const { message, cancelled } = await rescheduleByKey(
      deps,
      { ...input, cancelKey: input.cancelKey! },
      API_ACTOR,
    );
    res.status(201).json({ ...messageView(message), cancelled } satisfies RescheduledByKey);
  });

  router.put('/messages/:id', async (req, res) => {
    const id = messageId(req.params.id);
    const old = await findMessage(deps.pool, id);
    if (!old || !usesAccount(req, old.appId)) throw new NotFoundError(`message ${id}`);
    const body = rescheduleBody(req.body);
    const input = parseScheduleRequest(
      {
        appId: old.appId,
        openid: old.openid,
        channel: old.channel,
        message: old.payload,
        ...(old.cancelKey ? { cancelKey: old.cancelKey } : {}),
        ...(old.maxLatenessMs ? { maxLatenessMs: old.maxLatenessMs } : {}),
        ...body,
      },
      contextFor(req.principal),
    );
    const { message, replaces } = await rescheduleMessage(
      deps,
      id,
      { ...input, requestId: req.requestId },
      API_ACTOR,
    );
    res.status(201).json({ ...messageView(message), replaces } satisfies RescheduledMessage);
  });

  router.get('/messages/:id', async (req, res) => {
    const id = messageId(req.params.id);
    const message = await findMessage(deps.pool, id);
    if (!message || !usesAccount(req, message.appId)) throw new NotFoundError(`message ${id}`);
    res.json(messageDetailView(message, await listAttempts(deps.pool, id)));
  });

  router.delete('/messages/:id', async (req, res) => {
    const query = parseInput(cancelQuerySchema, req.query, 'invalid cancellation', { prefix: 'query' });
    const reason = query.reason || 'cancelled via api';
    const id = messageId(req.params.id);
    // A key's: the message must be of one of its accounts (its account never changes, so a read first holds).
    if (req.principal.kind === 'key') {
      const owner = (await accountsOfMessages(deps.pool, [id])).get(id);
      if (owner === undefined || !usesAccount(req, owner)) throw new NotFoundError(`message ${id}`);
    }
    const message = await cancelMessage({ id, reason, actor: API_ACTOR });
    deps.metrics.cancelled.inc({ scope: 'message' });
    res.json(messageView(message));
  });

  router.post('/cancellations', async (req, res) => {
    const body = jsonBody(req.body);
    if (typeof body === 'object' && body !== null && 'ids' in body) {
      res.json(await cancelByIds(deps, body, API_ACTOR, visibleAccounts(req)));
      return;
    }
    const c = parseInput(cancellationSchema, body, 'invalid cancellation');
    if (!appIds.has(c.appId) || !usesAccount(req, c.appId)) {
      throw new ValidationError('invalid cancellation', [
        { path: 'appId', message: `no account ${c.appId} is configured` },
      ]);
    }
    const { cancellation, matched } = await oneAtATime(c.appId, () =>
      cancelByTarget(deps.pool, {
        appId: c.appId,
        target: c.cancelKey !== undefined ? { cancelKey: c.cancelKey } : { openid: c.openid! },
        reason: c.reason,
        actor: API_ACTOR,
      }),
    );
    deps.metrics.cancelled.inc({ scope: cancellation.scope });
    const answer: CancellationView = {
      id: cancellation.id,
      appId: cancellation.appId,
      scope: cancellation.scope,
      target: cancellation.target,
      reason: cancellation.reason,
      createdAt: cancellation.createdAt.toISOString(),
      matched,
    };
    res.status(201).json(answer);
  });

  return router;
}
