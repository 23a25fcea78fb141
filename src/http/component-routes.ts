import express, { Router } from 'express';
import type { PushedAuthorization } from '../accounts/exchange-pushed-code';
import type { AccountRegistry } from '../accounts/registry';
import type { SecretBox } from '../accounts/secret-box';
import { takePlatformEvent } from '../accounts/take-platform-event';
import type { PlatformConfig } from '../config';
import type { Pool } from '../db/pool';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { createPushCrypto } from '../wechat/crypto';
import {
  authenticateComponentPush,
  type ComponentEndpoint,
  type ComponentPush,
} from '../webhook/authenticate-component-push';
import { toPushRequest } from './push-request';

export interface ComponentRouteDeps {
  readonly platform: PlatformConfig;
  readonly pool: Pool;
  readonly box: SecretBox;
  readonly accounts: AccountRegistry;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly bodyLimitBytes: number;
  readonly maxSkewS: number;
  /** Exchanges the code of a kept `authorized` / `updateauthorized` push in the background. */
  readonly exchangeCodeLater: (push: PushedAuthorization) => void;
}

/** The path of the authorization-event URL (授权事件接收配置) under /wechat. */
export const COMPONENT_PATH = '/component';

/**
 * `POST /wechat/component`, the third-party platform's authorization-event URL (reference/wechat-platform.md
 * §1.1, one URL, no `$APPID$`): takes `component_verify_ticket` and the `authorized` / `updateauthorized` /
 * `unauthorized` events, signed and encrypted with the component's token and key, and answers the plain
 * string `success` once what they carry is stored (WeChat waits 5 s at most); then the code of an
 * authorization event is exchanged in the background, unless a later event of the account was stored
 * already. Anything not authentic is refused (401), a malformed or foreign push 400, a replay 409; none
 * writes anything.
 */
export function createComponentRouter(deps: ComponentRouteDeps): Router {
  const { platform } = deps;
  const endpoint: ComponentEndpoint = {
    componentAppId: platform.componentAppId,
    token: platform.componentToken,
    crypto: createPushCrypto({
      appId: platform.componentAppId,
      token: platform.componentToken,
      encodingAESKey: platform.componentEncodingAESKey,
    }),
  };
  const eventDeps = { ...deps, componentAppId: platform.componentAppId };
  const count = (type: string, verdict: string) => deps.metrics.webhookPushes.inc({ type, verdict });
  const router = Router();
  router.post(
    COMPONENT_PATH,
    express.text({ type: () => true, limit: deps.bodyLimitBytes }),
    async (req, res) => {
      let push: ComponentPush;
      try {
        push = authenticateComponentPush(toPushRequest(req), endpoint, deps.maxSkewS);
      } catch (err) {
        count('component:unknown', `rejected:${err instanceof AppError ? err.code : 'error'}`);
        throw err;
      }
      const { event } = push;
      const type = `component:${event.infoType}`;
      let kept: boolean;
      try {
        ({ kept } = await takePlatformEvent(eventDeps, push.msgSignature, event));
        count(type, kept ? 'recorded' : 'superseded');
      } catch (err) {
        count(type, `rejected:${err instanceof AppError ? err.code : 'error'}`);
        throw err;
      }
      res.type('text/plain').send('success');
      if (kept && (event.infoType === 'authorized' || event.infoType === 'updateauthorized')) {
        deps.exchangeCodeLater(event);
      }
    },
  );
  return router;
}
