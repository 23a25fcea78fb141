import { randomBytes } from 'node:crypto';
import { toComponentWirePush } from '../../src/simulator/component-push';
import { pushNonce, type PlainPushField, type WirePush } from '../../src/simulator/push-format';
import { createSimCipher } from '../../src/simulator/sim-crypto';
import type { Service } from '../../src/main/start-service';
import type { OpenPlatform } from '../../src/simulator/open-platform';
import { anAppId, anEncodingAESKey, anOpenid, aTextMessage } from './builders';
import { createHarness, type Harness } from './harness';

/** A third-party platform's settings, as the four WECHAT_COMPONENT_* variables, and as values. */
export interface APlatform {
  readonly componentAppId: string;
  readonly secret: string;
  readonly token: string;
  readonly encodingAESKey: string;
  readonly env: Record<string, string>;
}

export const aPlatform = (): APlatform => {
  const p = {
    componentAppId: anAppId(),
    secret: `component-secret-${randomBytes(6).toString('hex')}`,
    token: `ctok${randomBytes(6).toString('hex')}`,
    encodingAESKey: anEncodingAESKey(),
  };
  return {
    ...p,
    env: {
      WECHAT_COMPONENT_APP_ID: p.componentAppId,
      WECHAT_COMPONENT_SECRET: p.secret,
      WECHAT_COMPONENT_TOKEN: p.token,
      WECHAT_COMPONENT_ENCODING_AES_KEY: p.encodingAESKey,
    },
  };
};

export const nowS = (offsetS = 0): number => Math.floor(Date.now() / 1000) + offsetS;

/** The plaintext fields of a `component_verify_ticket` push. */
export const aTicketPush = (appId: string, ticket: string, createTimeS = nowS()): PlainPushField[] => [
  ['AppId', appId, 'text'],
  ['CreateTime', String(createTimeS), 'number'],
  ['InfoType', 'component_verify_ticket', 'text'],
  ['ComponentVerifyTicket', ticket, 'text'],
];

/** The plaintext fields of an authorization event (a made-up code unless given); `unauthorized` carries no code. */
export const anAuthorizationPush = (
  appId: string,
  infoType: 'authorized' | 'updateauthorized' | 'unauthorized',
  authorizerAppId: string,
  createTimeS = nowS(),
  code = `queryauthcode@@@${randomBytes(8).toString('hex')}`,
): PlainPushField[] => [
  ['AppId', appId, 'text'],
  ['CreateTime', String(createTimeS), 'number'],
  ['InfoType', infoType, 'text'],
  ['AuthorizerAppid', authorizerAppId, 'text'],
  ...(infoType === 'unauthorized'
    ? []
    : ([
        ['AuthorizationCode', code, 'text'],
        ['AuthorizationCodeExpiredTime', String(createTimeS + 3600), 'number'],
        ['PreAuthCode', `preauthcode@@@${randomBytes(6).toString('hex')}`, 'text'],
      ] as PlainPushField[])),
];

/**
 * Signs and encrypts `fields` as the Open Platform does, with the simulator's own crypto; `sealFor` and
 * `token` sign or encrypt as another component would.
 */
export function aComponentPush(
  platform: APlatform,
  fields: readonly PlainPushField[],
  opts: { sealFor?: string; token?: string; timestampS?: number } = {},
): WirePush {
  const appId = opts.sealFor ?? platform.componentAppId;
  return toComponentWirePush(
    {
      componentAppId: appId,
      token: opts.token ?? platform.token,
      cipher: createSimCipher(appId, platform.encodingAESKey),
    },
    fields,
    String(opts.timestampS ?? nowS()),
    pushNonce(),
  );
}

/** Schedules a text to a fresh follower of `appId` through the API, due now; answers the status and the openid. */
export async function aTextSentThrough(
  h: Pick<Harness, 'api'>,
  service: Pick<Service, 'url'>,
  appId: string,
  text: string,
): Promise<{ status: number; openid: string }> {
  const openid = anOpenid();
  const res = await h.api(service, '/v1/messages', {
    method: 'POST',
    body: JSON.stringify({ appId, openid, message: aTextMessage(text) }),
  });
  return { status: res.status, openid };
}

/**
 * A harness whose simulator plays `platform`'s Open Platform (its clock `simulatorNow`), a service
 * connecting accounts through the simulator's authorization page, and a first ticket pushed and taken.
 */
export async function startPlatformHarness(
  platform: APlatform,
  simulatorNow: () => number,
): Promise<{ h: Harness; service: Service; sim: OpenPlatform }> {
  const h = await createHarness({ ...platform.env }, { simulatorComponent: platform, simulatorNow });
  const service = await h.start({
    WECHAT_COMPONENT_LOGIN_PAGE_URL: `${h.simulatorUrl}/cgi-bin/componentloginpage`,
  });
  const sim = h.simulator.openPlatform!;
  const ticket = await sim.pushTicket();
  if (ticket.body !== 'success') throw new Error(`the service answered the first ticket ${ticket.status}`);
  return { h, service, sim };
}
