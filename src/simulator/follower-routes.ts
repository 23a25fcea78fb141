import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FollowerView } from './followers';
import { readBody, sendBadRequest, sendJson } from './http-io';
import { PUSH_ACTIONS, PushRequestError, type PushOutcome } from './pushes';

/** What the follower routes act on: the simulator's own accessors. */
export interface FollowerTarget {
  push(action: string, openid: string, body: unknown): Promise<PushOutcome>;
  /** Null when the account is unknown. */
  follower(appId: string, openid: string): FollowerView | null;
}

/** The prefix of the follower routes. */
export const FOLLOWER_ROUTES_PREFIX = '/__sim/users/';

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * `POST /__sim/users/:openid/:action` (follow, unfollow, scan, click, message, notice) pushes the action to the
 * webhook and answers what it said; `GET /__sim/users/:openid?appId=` shows the simulator's follower
 * state. 400 for bad input, 404 for other paths under the prefix.
 */
export async function handleFollowerRoute(
  target: FollowerTarget,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  const segments = path.slice(FOLLOWER_ROUTES_PREFIX.length).split('/').map(decode);
  const [openid, action] = segments;
  if (openid == null || openid === '' || segments.length > 2 || action === null) {
    return sendJson(res, 404, { error: { code: 'not_found', message: `no route ${req.method} ${path}` } });
  }
  if (req.method === 'GET' && action === undefined) {
    const appId = query.get('appId');
    if (appId === null) return sendBadRequest(res, 'appId query parameter is required');
    const view = target.follower(appId, openid);
    return view === null ? sendBadRequest(res, `unknown appId ${appId}`) : sendJson(res, 200, view);
  }
  if (
    req.method !== 'POST' ||
    action === undefined ||
    !(PUSH_ACTIONS as readonly string[]).includes(action)
  ) {
    return sendJson(res, 404, { error: { code: 'not_found', message: `no route ${req.method} ${path}` } });
  }
  const raw = await readBody(req);
  let body: unknown;
  try {
    body = JSON.parse(raw ?? '') as unknown;
  } catch {
    return sendBadRequest(res, 'body must be JSON');
  }
  try {
    return sendJson(res, 200, await target.push(action, openid, body));
  } catch (err) {
    if (err instanceof PushRequestError) return sendBadRequest(res, err.message, err.problems);
    throw err;
  }
}
