import type { RequestHandler } from 'express';
import { parseScheduleRequest, type ScheduleContext } from '../scheduling/schedule-request';
import { scheduleMessages } from '../scheduling/schedule-messages';
import { jsonBody } from './json-body';
import { messageView } from './message-view';
import type { V1Deps } from './v1-deps';

/** What a message request is checked against when it arrives: the accounts, the horizon, the time. */
export function createScheduleContext(deps: V1Deps): () => ScheduleContext {
  const appIds = { has: (appId: string) => deps.accounts.get(appId) !== undefined };
  return () => ({ appIds, maxAheadMs: deps.config.maxScheduleAheadDays * 86_400_000, now: new Date() });
}

/**
 * `POST /v1/messages`: schedules one message; 201 with it, or 200 with the one its idempotency key
 * already names.
 */
export function postMessage(deps: V1Deps, context: () => ScheduleContext): RequestHandler {
  return async (req, res) => {
    const input = { ...parseScheduleRequest(jsonBody(req.body), context()), requestId: req.requestId };
    const [result] = await scheduleMessages(deps, [input]);
    if (!result.ok) throw result.error;
    res.status(result.created ? 201 : 200).json(messageView(result.message));
  };
}
