import { anOpenid, aSequence, aStep, aTextMessage } from './support/builders';
import { untilReceived } from './support/expectations';
import { call, type Answer } from './support/http';
import { createSimulatorClient } from './support/simulator-client';
import type { ErrorBody } from './support/types';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/webhook.md "Webhook security": the webhook tells no one which app ids are accounts, a push signed
// for one account is refused at another's URL, and a push laid out with whitespace around its values is
// read as WeChat's SDKs read it.
const OTHER = anAccount({
  appId: 'wxacceptance0002',
  token: 'othertoken0002',
  encodingAESKey: 'OtherAccountEncodingAESKey0123456789abcdefg',
});
const PLAIN = anAccount({ appId: 'wxacceptance0003', token: 'plaintoken0003', pushMode: 'plaintext' });
let world: World;

beforeAll(async () => {
  world = await startWorld({
    name: 'webhook-security',
    accounts: [anAccount(), OTHER, PLAIN],
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const nowS = () => String(Math.floor(Date.now() / 1000));
const webhook = (appId: string, query: string) => `${world.api.url}/wechat/${appId}?${query}`;
const post = (url: string, body: string, contentType = 'text/xml') =>
  call(url, { body, headers: { 'content-type': contentType } });
/** What a refusal tells the caller: its status and error body. */
const told = (answer: Answer) => {
  const { error } = answer.body as ErrorBody;
  return { status: answer.status, code: error.code, message: error.message, details: error.details };
};

describe('Webhook security', () => {
  it('answers an app id that is no account exactly as a bad signature: same status and body, GET and POST', async () => {
    const badSignature = `timestamp=${nowS()}&nonce=1&signature=${'0'.repeat(40)}&echostr=e`;
    const forged = '<xml><ToUserName><![CDATA[gh]]></ToUserName><Encrypt><![CDATA[AAAA]]></Encrypt></xml>';
    const safeQuery = `${badSignature}&encrypt_type=aes&msg_signature=${'0'.repeat(40)}`;

    for (const appId of [APP_ID, PLAIN.appId]) {
      const known = told(await call(webhook(appId, badSignature)));
      expect(known.status).toBe(401);
      expect(told(await call(webhook('wxnosuchaccount01', badSignature)))).toEqual(known);
      for (const [query, body] of [
        [safeQuery, forged],
        [badSignature, '<xml/>'],
      ]) {
        expect(told(await post(webhook('wxnosuchaccount01', query), body))).toEqual(
          told(await post(webhook(appId, query), body)),
        );
      }
    }
  });

  it('refuses a push captured at one account’s URL at another’s (each account signs with its own token), like an unsigned one, recording nothing', async () => {
    const openid = anOpenid();
    const captured = await world.sim.follow(openid);
    expect(captured.pushes.map((p) => `${p.status} ${p.body}`)).toEqual(['200 success']);
    const { path, body, contentType } = captured.wire;
    const query = path.slice(path.indexOf('?') + 1);

    const atOther = told(await post(webhook(OTHER.appId, query), body, contentType));
    const atNobody = told(await post(webhook('wxnosuchaccount01', query), body, contentType));

    expect(atOther.status).toBe(401);
    expect(atNobody).toEqual(atOther);
    expect((await world.api.follower(OTHER.appId, openid)).follower).toBeNull();
  });

  it('reads a plaintext push laid out with whitespace between its tags and CDATA: it reaches its follower', async () => {
    const res = await world.api('/v1/sequences', {
      json: aSequence({
        appId: PLAIN.appId,
        trigger: { type: 'keyword', keyword: 'indented' },
        steps: [aStep({ message: aTextMessage('read through the whitespace') })],
      }),
    });
    expect(res.status).toBe(201);
    const openid = anOpenid();
    const sim = createSimulatorClient(world.sim.url, PLAIN.appId);

    const push = await sim.message(openid, 'indented', { layout: 'indented' });

    expect(push.wire.body).toContain(`<FromUserName>\n  <![CDATA[${openid}]]>\n</FromUserName>`);
    expect(push.pushes).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);
    await untilReceived(sim, openid, 'read through the whitespace');
    expect((await world.api.follower(PLAIN.appId, openid)).interactions).toHaveLength(1);
  });
});
