import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import { toComponentWirePush } from './component-push';
import { pushNonce, type PlainPushField } from './push-format';
import { createSimCipher } from './sim-crypto';
import { type ComponentApiState, handleComponentApi } from './component-api';
import { createAuthCodes, DEFAULT_FUNC_IDS, handleLoginPage } from './component-auth';
import {
  AUTHORIZATION_ACTIONS,
  type AuthorizationAction,
  type ComponentControlTarget,
  handleComponentControl,
} from './component-controls';
import type { SimulatorAccount } from './config';
import type { TokenRegistry } from './tokens';

/** The third-party platform the simulated Open Platform knows (the service's WECHAT_COMPONENT_*). */
export interface SimComponent {
  readonly componentAppId: string;
  /** Secret: never logged. */
  readonly secret: string;
  readonly token: string;
  readonly encodingAESKey: string;
}

/** One push to the authorization-event URL and what the service answered (WeChat wants `success`). */
export interface ComponentDelivery {
  readonly infoType: string;
  readonly authorizerAppId: string | null;
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly body: string;
  readonly at: string;
}

export interface OpenPlatformOptions {
  readonly component: SimComponent;
  /** Issues the component and authorizer tokens (authorizer tokens are good for sends). */
  readonly tokens: TokenRegistry;
  /** Makes an account that authorized the platform known to the rest of the simulator (sends, pushes). */
  readonly registerAccount: (account: SimulatorAccount) => void;
  /** The authorization-event URL: `{webhookBaseUrl}/wechat/component`. */
  readonly webhookBaseUrl: string;
  /** How often a ticket is pushed, in ms (WeChat: every 10 minutes). */
  readonly ticketIntervalMs: number;
  readonly logger: Logger;
  readonly now: () => number;
}

/** The simulated Open Platform: its ticket pushes and authorization events, and their control routes. */
export interface OpenPlatform {
  /** Pushes a new component_verify_ticket now. */
  pushTicket(): Promise<ComponentDelivery>;
  /**
   * An account's admin authorizes, updates or revokes the platform: pushes the event. `funcIds`: the
   * permission sets granted (default 1, 7).
   */
  authorize(
    appId: string,
    action: AuthorizationAction,
    funcIds?: readonly number[],
  ): Promise<ComponentDelivery>;
  /** While `lost`, the pushes do not reach the authorization-event URL (recorded with status 0). */
  losePushes(lost: boolean): void;
  /** The account's authorizer_refresh_token; null unless it authorized the platform (in-process tests). */
  refreshTokenOf(appId: string): string | null;
  /**
   * The component APIs (`/cgi-bin/component/…`) and `/__sim/component/…`: answers and returns true, or
   * false when the path is not one of them.
   */
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean>;
  close(): void;
}

/** WeChat gives up on a push after 5 s. */
const PUSH_TIMEOUT_MS = 5000;

export function createOpenPlatform(opts: OpenPlatformOptions): OpenPlatform {
  const { component, logger, now, registerAccount } = opts;
  const channel = {
    componentAppId: component.componentAppId,
    token: component.token,
    cipher: createSimCipher(component.componentAppId, component.encodingAESKey),
  };
  const url = `${opts.webhookBaseUrl}/wechat/component`;
  const deliveries: ComponentDelivery[] = [];
  const tickets: { value: string; pushedAt: number }[] = [];
  /** Each account's refresh token while it authorizes the platform. */
  const refreshTokens = new Map<string, string>();
  let ipRegistered = true;
  let pushesLost = false;
  const codes = createAuthCodes(now);
  const api: ComponentApiState = {
    codes,
    component,
    tokens: opts.tokens,
    now,
    tickets: () => tickets,
    refreshTokenOf: (appId) => refreshTokens.get(appId) ?? null,
    ipRegistered: () => ipRegistered,
  };

  async function deliver(
    fields: PlainPushField[],
    authorizerAppId: string | null,
  ): Promise<ComponentDelivery> {
    const push = toComponentWirePush(channel, fields, String(Math.floor(now() / 1000)), pushNonce());
    let status = 0;
    let body = 'lost: the authorization-event URL was not reached';
    try {
      if (!pushesLost) {
        const res = await fetch(`${url}?${push.query}`, {
          method: 'POST',
          headers: { 'content-type': push.contentType },
          body: push.body,
          signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
        });
        status = res.status;
        body = await res.text();
      }
    } catch (err) {
      body = (err as Error).message;
    }
    const infoType = fields.find(([n]) => n === 'InfoType')![1];
    const delivery = { infoType, authorizerAppId, status, body, at: new Date(now()).toISOString() };
    deliveries.push(delivery);
    if (body !== 'success') logger.warn({ infoType, status }, 'component push not answered success');
    return delivery;
  }

  const head = (infoType: string): PlainPushField[] => [
    ['AppId', component.componentAppId, 'text'],
    ['CreateTime', String(Math.floor(now() / 1000)), 'number'],
    ['InfoType', infoType, 'text'],
  ];

  /** Authorizes, updates or revokes, pushes the event, and gives its authorization code (null on revoke). */
  async function authorizeWith(
    appId: string,
    action: AuthorizationAction,
    opts: { preAuthCode?: string; funcIds?: readonly number[] } = {},
  ): Promise<{ delivery: ComponentDelivery; code: string | null }> {
    const infoType = AUTHORIZATION_ACTIONS[action];
    // Authorizing again changes the refresh token; unauthorizing kills it (§1.6).
    if (action === 'unauthorize') refreshTokens.delete(appId);
    else if (action === 'authorize' || !refreshTokens.has(appId)) {
      refreshTokens.set(appId, `refreshtoken@@@${randomBytes(24).toString('base64url')}`);
      // Its followers' events now reach the service through the platform's URL and key.
      registerAccount({
        appId,
        secret: randomBytes(16).toString('hex'),
        token: component.token,
        encodingAESKey: component.encodingAESKey,
        pushMode: 'safe',
        viaComponent: component.componentAppId,
      });
    }
    const issued =
      action === 'unauthorize' ? null : codes.issueAuthCode(appId, opts.funcIds ?? DEFAULT_FUNC_IDS);
    const code: PlainPushField[] = issued
      ? [
          ['AuthorizationCode', issued.code, 'text'],
          ['AuthorizationCodeExpiredTime', String(Math.floor(now() / 1000) + issued.expiresInS), 'number'],
          [
            'PreAuthCode',
            opts.preAuthCode ?? `preauthcode@@@${randomBytes(12).toString('base64url')}`,
            'text',
          ],
        ]
      : [];
    const delivery = await deliver([...head(infoType), ['AuthorizerAppid', appId, 'text'], ...code], appId);
    return { delivery, code: issued?.code ?? null };
  }

  const platform: OpenPlatform = {
    pushTicket() {
      const ticket = `ticket@@@${randomBytes(24).toString('base64url')}`;
      tickets.push({ value: ticket, pushedAt: now() });
      tickets.splice(0, tickets.length - 2);
      return deliver([...head('component_verify_ticket'), ['ComponentVerifyTicket', ticket, 'text']], null);
    },
    authorize: async (appId, action, funcIds) => (await authorizeWith(appId, action, { funcIds })).delivery,
    losePushes: (lost) => void (pushesLost = lost),
    refreshTokenOf: api.refreshTokenOf,
    async handle(req, res, path, query) {
      if (await handleComponentApi(api, req, res, path, query)) return true;
      const route = `${req.method ?? ''} ${path}`;
      if (route === 'GET /cgi-bin/componentloginpage') {
        await handleLoginPage(res, query, {
          componentAppId: component.componentAppId,
          codes,
          authorize: async (appId, opts) => (await authorizeWith(appId, 'authorize', opts)).code!,
        });
        return true;
      }
      return handleComponentControl(controls, req, res, route);
    },
    close: () => clearInterval(timer),
  };
  const controls: ComponentControlTarget = {
    pushTicket: platform.pushTicket,
    authorize: platform.authorize,
    deliveries: () => deliveries,
    redemptions: codes.redemptions,
    setIpRegistered: (registered) => void (ipRegistered = registered),
    losePushes: platform.losePushes,
  };
  const timer = setInterval(() => void platform.pushTicket(), opts.ticketIntervalMs);
  timer.unref();
  return platform;
}
