import type { Service } from '../../src/main/start-service';
import { accountViewSchema } from '../../src/contract';
import { aNewMessage, anAccountBody, anAppId, anEncodingAESKey } from '../helpers/builders';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';
import { seedMessages } from '../helpers/seed';

let h: Harness;
let api: Service;
/** An account the simulator knows, with this secret. */
const KNOWN = { appId: anAppId(), secret: 'sim-known-secret' };

beforeAll(async () => {
  h = await createHarness(
    { ROLE: 'api' },
    { simulatorAccounts: [{ appId: APP_ID, secret: 'test-secret' }, KNOWN] },
  );
  api = await h.start();
});
afterAll(() => h.close());

const send = (method: string, path: string, body?: unknown) =>
  h.api(api, path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
const accountCount = async () =>
  (await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts')).rows[0].n;
const SECRET_KEYS = ['secret', 'token', 'encodingAESKey', 'previousEncodingAESKey'];

describe('/v1/accounts', () => {
  it('creates an account (201) in the view shape, with no secret in the answer', async () => {
    const body = anAccountBody({
      name: 'Spring school',
      pushMode: 'safe',
      encodingAESKey: anEncodingAESKey(),
    });
    const res = await send('POST', '/v1/accounts', body);
    const text = await res.text();

    expect(res.status).toBe(201);
    const view = accountViewSchema.parse(JSON.parse(text));
    expect(view).toMatchObject({
      appId: body.appId,
      name: 'Spring school',
      kind: 'own',
      enabled: true,
      status: 'active',
      webhook: true,
      webhookUrl: `/wechat/${body.appId}`,
      hasSecret: true,
      hasEncodingAESKey: true,
      hasPreviousEncodingAESKey: false,
      policyName: 'official',
      sendRatePerSecond: 1000,
      sentToday: { custom: 0, template: 0 },
    });
    for (const key of SECRET_KEYS) expect(Object.keys(JSON.parse(text) as object)).not.toContain(key);
    for (const secret of [body.secret, body.token!, body.encodingAESKey!]) expect(text).not.toContain(secret);
  });

  it('answers 409 for an app id that exists, and changes nothing', async () => {
    const body = anAccountBody();
    expect((await send('POST', '/v1/accounts', body)).status).toBe(201);
    const res = await send('POST', '/v1/accounts', { ...body, name: 'again' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('account_exists');
    expect(
      ((await (await send('GET', `/v1/accounts/${body.appId}`)).json()) as { name: unknown }).name,
    ).toBeNull();
  });

  it.each([
    ['appId', { appId: 'has space' }],
    ['secret', { secret: '' }],
    ['encodingAESKey', { pushMode: 'safe' }],
    ['windowPolicy', { windowPolicy: 'lenient' }],
    ['sendRatePerSecond', { sendRatePerSecond: -5 }],
    ['sekret', { sekret: 'x' }],
  ])('refuses a bad %s with 400 naming it, and writes nothing', async (field, change) => {
    const before = await accountCount();
    const res = await send('POST', '/v1/accounts', { ...anAccountBody(), ...change });
    const body = (await res.json()) as { error: { details: { path: string }[] } };
    expect(res.status).toBe(400);
    expect(body.error.details.map((d) => d.path)).toContain(field);
    expect(await accountCount()).toBe(before);
  });

  it('lists and reads accounts, and answers 404 for an unknown one', async () => {
    const body = anAccountBody();
    await send('POST', '/v1/accounts', body);
    const list = (await (await send('GET', '/v1/accounts')).json()) as { accounts: { appId: string }[] };
    expect(list.accounts.map((a) => a.appId)).toEqual(expect.arrayContaining([APP_ID, body.appId]));
    expect((await send('GET', `/v1/accounts/${body.appId}`)).status).toBe(200);
    expect((await send('GET', '/v1/accounts/wxnobody0000000')).status).toBe(404);
  });

  it('PATCHes a subset: null clears the token, a new secret replaces the old, the rest is kept', async () => {
    const body = anAccountBody({ sendRatePerSecond: 30 });
    await send('POST', '/v1/accounts', body);
    const res = await send('PATCH', `/v1/accounts/${body.appId}`, {
      token: null,
      secret: 'replaced',
      enabled: false,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      webhook: false,
      hasSecret: true,
      enabled: false,
      status: 'disabled',
      sendRatePerSecond: 30,
    });
    expect(api.accounts.get(body.appId)?.secret).toBe('replaced');
  });

  it('refuses a PATCH that would leave safe mode without a key, or names an unknown field, and writes nothing', async () => {
    const body = anAccountBody();
    await send('POST', '/v1/accounts', body);
    const before = api.accounts.get(body.appId);
    for (const patch of [{ pushMode: 'safe' }, { appId: 'wxother' }, { secret: null }]) {
      const res = await send('PATCH', `/v1/accounts/${body.appId}`, patch);
      expect(res.status).toBe(400);
    }
    await api.accounts.refresh();
    expect(api.accounts.get(body.appId)).toBe(before);
    expect((await send('PATCH', '/v1/accounts/wxnobody0000000', { enabled: false })).status).toBe(404);
  });

  it('DELETE cancels the open messages with one ledger row, removes the account, and refuses its pushes', async () => {
    const body = anAccountBody();
    await send('POST', '/v1/accounts', body);
    const ids = await seedMessages(
      h.db.pool,
      [0, 1, 2].map(() => aNewMessage({ appId: body.appId, dueAt: new Date(Date.now() + 3_600_000) })),
    );

    const res = await send('DELETE', `/v1/accounts/${body.appId}`);

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      appId: body.appId,
      deleted: true,
      cancelled: 3,
      archivedSequences: 0,
    });
    const ledger = await h.db.pool.query(
      'SELECT scope, target, reason FROM cancellations WHERE app_id = $1',
      [body.appId],
    );
    expect(ledger.rows).toEqual([{ scope: 'account', target: body.appId, reason: 'account_deleted' }]);
    for (const id of ids) {
      expect(await (await send('GET', `/v1/messages/${id}`)).json()).toMatchObject({ status: 'cancelled' });
    }
    expect((await send('GET', `/v1/accounts/${body.appId}`)).status).toBe(404);
    expect(
      (await fetch(`${api.url}/wechat/${body.appId}?signature=x&timestamp=1&nonce=1&echostr=e`)).status,
    ).toBe(401);
    expect((await send('DELETE', `/v1/accounts/${body.appId}`)).status).toBe(404);
  });

  it('check reports WeChat’s answer in words: a token issued, a wrong AppSecret, an unknown app id', async () => {
    await send('POST', '/v1/accounts', anAccountBody({ ...KNOWN }));
    const check = async (appId: string) => (await send('POST', `/v1/accounts/${appId}/check`)).json();

    expect(await check(KNOWN.appId)).toMatchObject({
      ok: true,
      errcode: 0,
      message: expect.stringMatching(/issued an access token/),
    });
    await send('PATCH', `/v1/accounts/${KNOWN.appId}`, { secret: 'wrong-secret' });
    expect(await check(KNOWN.appId)).toMatchObject({
      ok: false,
      errcode: 40125,
      message: expect.stringMatching(/refused the AppSecret/),
    });
    const stranger = anAccountBody();
    await send('POST', '/v1/accounts', stranger);
    const answer = await check(stranger.appId);
    expect(answer).toMatchObject({
      ok: false,
      errcode: 40013,
      message: expect.stringMatching(/does not know this app id/),
    });
    expect(JSON.stringify(answer)).not.toContain(stranger.secret);
  });
});
