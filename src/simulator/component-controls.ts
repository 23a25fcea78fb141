import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CodeRedemption } from './component-auth';
import { readBody, sendBadRequest, sendJson } from './http-io';

/** What an account's admin does in WeChat, and the InfoType it pushes. */
export const AUTHORIZATION_ACTIONS = {
  authorize: 'authorized',
  update: 'updateauthorized',
  unauthorize: 'unauthorized',
} as const;
export type AuthorizationAction = keyof typeof AUTHORIZATION_ACTIONS;

/** What the `/__sim/component/…` controls act on: the simulated Open Platform's own accessors. */
export interface ComponentControlTarget {
  pushTicket(): Promise<unknown>;
  authorize(appId: string, action: AuthorizationAction, funcIds?: readonly number[]): Promise<unknown>;
  deliveries(): readonly unknown[];
  redemptions(): readonly CodeRedemption[];
  setIpRegistered(registered: boolean): void;
  losePushes(lost: boolean): void;
}

const APP_ID = /^[A-Za-z0-9_-]{4,64}$/;

/**
 * The Open Platform's test controls: push a ticket or an account's authorization event now, list the
 * pushes and the `api_query_auth` calls, take the caller's IP off the whitelist, lose the pushes (the
 * authorization-event URL unreachable). Answers and returns true, or false for another route; 400 for
 * bad input, which changes nothing.
 */
export async function handleComponentControl(
  target: ComponentControlTarget,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
): Promise<boolean> {
  if (route === 'POST /__sim/component/ip-whitelist') {
    const registered = parseJson(await readBody(req))?.registered;
    if (typeof registered !== 'boolean') sendBadRequest(res, 'registered (boolean) is required');
    else sendJson(res, 200, { registered: (target.setIpRegistered(registered), registered) });
  } else if (route === 'POST /__sim/component/push-loss') {
    const lost = parseJson(await readBody(req))?.lost;
    if (typeof lost !== 'boolean') sendBadRequest(res, 'lost (boolean) is required');
    else sendJson(res, 200, { lost: (target.losePushes(lost), lost) });
  } else if (route === 'POST /__sim/component/ticket') {
    sendJson(res, 200, await target.pushTicket());
  } else if (route === 'POST /__sim/component/authorizations') {
    const body = parseAuthorization(await readBody(req));
    if (typeof body === 'string') sendBadRequest(res, body);
    else sendJson(res, 200, await target.authorize(body.appId, body.action, body.funcIds));
  } else if (route === 'GET /__sim/component/pushes') {
    sendJson(res, 200, { pushes: target.deliveries() });
  } else if (route === 'GET /__sim/component/redemptions') {
    sendJson(res, 200, { redemptions: target.redemptions() });
  } else {
    return false;
  }
  return true;
}

function parseJson(raw: string | null): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw ?? '');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function parseAuthorization(
  raw: string | null,
): { appId: string; action: AuthorizationAction; funcIds?: readonly number[] } | string {
  const value = parseJson(raw);
  if (value === null) return 'body must be a JSON object';
  const { appId, action, funcIds } = value;
  if (typeof appId !== 'string' || !APP_ID.test(appId)) return 'appId must be 4–64 letters, digits, _ or -';
  if (typeof action !== 'string' || !Object.hasOwn(AUTHORIZATION_ACTIONS, action)) {
    return `action must be one of ${Object.keys(AUTHORIZATION_ACTIONS).join(', ')}`;
  }
  if (
    funcIds !== undefined &&
    (action === 'unauthorize' || !Array.isArray(funcIds) || !funcIds.every((id) => Number.isInteger(id)))
  ) {
    return 'funcIds (permission set ids granted) must be an array of integers, and only when authorizing or updating';
  }
  return {
    appId,
    action: action as AuthorizationAction,
    ...(funcIds ? { funcIds: funcIds as number[] } : {}),
  };
}
