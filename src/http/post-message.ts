import type { RequestHandler } from 'express';
import type { MessageView } from '../contract';
import { parseScheduleRequest, type ScheduleContext } from '../scheduling/schedule-request';
import { scheduleMessages } from '../scheduling/schedule-messages';
import { jsonBody } from './json-body';
import { messageView } from './message-view';
import type { V1Deps } from './v1-deps';
import { mayUseAccount, type Principal } from '../access/principal';

/** The schedule context of one request, for the credential it carries. */
export type ContextFor = (principal: Principal) => ScheduleContext;

/**
 * What a message request is checked against when it arrives: the accounts the credential may use (to an
 * API key, an account outside its own reads as one that is not configured), the horizon, the time.
 */
export function createScheduleContext(deps: V1Deps): ContextFor {
  const all = { has: (appId: string) => deps.accounts.get(appId) !== undefined };
  const maxAheadMs = deps.config.maxScheduleAheadDays * 86_400_000;
  return (principal) => ({
    appIds:
      principal.kind === 'admin_token'
        ? all
        : { has: (appId: string) => mayUseAccount(principal, appId) && all.has(appId) },
    maxAheadMs,
    now: new Date(),
  });
}

/**
 * Schedules the message a `POST /v1/messages` body asks for: 201 with it, or 200 with the one its
 * idempotency key already names; throws what the error answer is made of.
 */
export async function scheduleOneMessage(
  deps: V1Deps,
  context: ScheduleContext,
  body: unknown,
  requestId: string,
): Promise<{ readonly status: 200 | 201; readonly view: MessageView }> {
  const input = { ...parseScheduleRequest(jsonBody(body), context), requestId };
  const [result] = await scheduleMessages(deps, [input]);
  if (!result.ok) throw result.error;
  return { status: result.created ? 201 : 200, view: messageView(result.message) };
}

/** `POST /v1/messages` through express (what `quickPostMessage` leaves to it). */
export function postMessage(deps: V1Deps, contextFor: ContextFor): RequestHandler {
  return async (req, res) => {
    const { status, view } = await scheduleOneMessage(
      deps,
      contextFor(req.principal),
      req.body,
      req.requestId,
    );
    res.status(status).json(view);
  };
}
