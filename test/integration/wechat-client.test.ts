import { randomBytes, randomUUID } from 'node:crypto';
import { createSecretBox } from '../../src/accounts/secret-box';
import { createTokenSealer } from '../../src/accounts/service-tokens';
import type { Pool } from '../../src/db/pool';
import { AppError } from '../../src/errors';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator';
import { clientMsgIdOf, createWechatClient, type WechatClient } from '../../src/wechat/client';
import { createTokenStore, type TokenStore } from '../../src/wechat/tokens';
import { createTestDb, type TestDb } from '../helpers/db';
import { silentLogger } from '../helpers/logger';
import { aSimTemplate, aTextMessage } from '../helpers/builders';
import { freePort, waitFor } from '../helpers/harness';

const ACCOUNT = { appId: 'wxclienttest01', secret: 'secret-one' };
const SEALER = createTokenSealer(createSecretBox(randomBytes(32)));
const TEXT = aTextMessage('your course starts in 15 minutes');

let db: TestDb;
let sim: Simulator;
let baseUrl: string;
const clients: WechatClient[] = [];

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function startSimulator(tokenTtlSeconds?: number): Promise<void> {
  sim = createSimulator({
    accounts: [ACCOUNT],
    tokenTtlSeconds,
    logger: silentLogger,
    enforceContactWindow: false,
  });
  sim.registerTemplates(ACCOUNT.appId, [aSimTemplate('TPL')]);
  baseUrl = (await sim.listen(0)).url;
}

beforeEach(async () => {
  await db.pool.query('DELETE FROM access_tokens');
  await startSimulator();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await sim.close();
});

interface StoreOptions {
  accounts?: { appId: string; secret: string }[];
  refreshMarginMs?: number;
  pool?: Pool;
}

function tokenStore(opts: StoreOptions = {}) {
  return createTokenStore({
    pool: opts.pool ?? db.pool,
    sealer: SEALER,
    baseUrl,
    secretOf: (appId: string) => (opts.accounts ?? [ACCOUNT]).find((a) => a.appId === appId)?.secret,
    refreshMarginMs: opts.refreshMarginMs ?? 240_000,
    timeoutMs: 2000,
    logger: silentLogger,
  });
}

function client(tokens: TokenStore, timeoutMs = 2000): WechatClient {
  const c = createWechatClient({ baseUrl, timeoutMs, maxConnections: 4, tokens, logger: silentLogger });
  clients.push(c);
  return c;
}

const stableCalls = () => sim.stats().tokens.requests.stable;
const storedSealed = async () =>
  (
    await db.pool.query<{ token: string }>('SELECT token FROM access_tokens WHERE app_id = $1', [
      ACCOUNT.appId,
    ])
  ).rows[0]?.token;
/** The stored token, opened. */
const storedToken = async () => {
  const sealed = await storedSealed();
  return sealed === undefined ? undefined : SEALER.open(ACCOUNT.appId, sealed);
};
const invalidateTokens = () =>
  fetch(`${baseUrl}/__sim/tokens/invalidate`, {
    method: 'POST',
    body: JSON.stringify({ appId: ACCOUNT.appId }),
  });
/** The test database's pool, counting the queries and transactions made through it. */
function countingPool() {
  const counts = { queries: 0, transactions: 0 };
  const pool = new Proxy(db.pool, {
    get(target, prop) {
      if (prop === 'query') counts.queries += 1;
      if (prop === 'connect') counts.transactions += 1;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { pool, counts };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('token store', () => {
  it('fetches a token once and shares it between two stores (processes) on the same database', async () => {
    const a = tokenStore();
    const b = tokenStore();
    const tokens = await Promise.all([a, b, a, b, a, b].map((store) => store.getToken(ACCOUNT.appId)));
    expect(new Set(tokens).size).toBe(1);
    expect(stableCalls()).toBe(1);
    expect(await storedToken()).toBe(tokens[0]);
    expect(await tokenStore().getToken(ACCOUNT.appId)).toBe(tokens[0]);
    expect(stableCalls()).toBe(1);
  });

  it('stores the token sealed, never in clear; one the keys do not open is fetched again and stored sealed', async () => {
    const token = await tokenStore().getToken(ACCOUNT.appId);
    expect(await storedSealed()).toMatch(/^v1\./);
    expect(await storedSealed()).not.toContain(token);

    // As a database left by a version that stored tokens in clear, or sealed by a key since removed.
    await db.pool.query('UPDATE access_tokens SET token = $2 WHERE app_id = $1', [ACCOUNT.appId, token]);
    expect(await tokenStore().getToken(ACCOUNT.appId)).toBe(token); // stable_token hands out the same
    expect(stableCalls()).toBe(2);
    expect(await storedToken()).toBe(token);
  });

  it('makes concurrent callers in one process share one refresh, then serves the token from memory', async () => {
    const { pool, counts } = countingPool();
    const store = tokenStore({ pool });
    await Promise.all([1, 2, 3, 4].map(() => store.getToken(ACCOUNT.appId)));
    expect(counts).toEqual({ queries: 1, transactions: 1 });
    await store.getToken(ACCOUNT.appId);
    expect(counts).toEqual({ queries: 1, transactions: 1 });
  });

  it('refreshes a token before it expires, while the old one still works', async () => {
    await sim.close();
    await startSimulator(2); // the simulator rotates in the last second
    const store = tokenStore({ refreshMarginMs: 900 });
    const first = await store.getToken(ACCOUNT.appId);
    expect(await store.getToken(ACCOUNT.appId)).toBe(first);
    await sleep(1200);
    const second = await store.getToken(ACCOUNT.appId);
    expect(second).not.toBe(first);
    expect(stableCalls()).toBe(2);
    expect(await storedToken()).toBe(second);
    const stillValid = await fetch(`${baseUrl}/cgi-bin/message/custom/send?access_token=${first}`, {
      method: 'POST',
      body: JSON.stringify({ touser: 'o1', ...TEXT }),
    });
    expect(await stillValid.json()).toEqual({ errcode: 0, errmsg: 'ok' });
  });

  it('does not refresh a token in the first half of its life, whatever the margin', async () => {
    await sim.close();
    await startSimulator(2);
    const store = tokenStore({ refreshMarginMs: 60_000 });
    await store.getToken(ACCOUNT.appId);
    await store.getToken(ACCOUNT.appId);
    expect(stableCalls()).toBe(1);
  });

  it('keeps using a still-valid token when its refresh fails for a passing reason', async () => {
    await sim.close();
    await startSimulator(2);
    const store = tokenStore({ refreshMarginMs: 900 });
    const token = await store.getToken(ACCOUNT.appId);
    await sleep(1200);
    await sim.close();
    expect(await store.getToken(ACCOUNT.appId)).toBe(token);
  });

  it('expires a token only if it is still the current one (compare-and-expire)', async () => {
    const store = tokenStore();
    const token = await store.getToken(ACCOUNT.appId);
    await store.expireToken(ACCOUNT.appId, 'an-older-token');
    expect(await store.getToken(ACCOUNT.appId)).toBe(token);
    expect(stableCalls()).toBe(1);
    await store.expireToken(ACCOUNT.appId, token);
    await store.getToken(ACCOUNT.appId);
    expect(stableCalls()).toBe(2);
  });

  it('reports a wrong appid (40013) as a token_error that retrying will not fix', async () => {
    const store = tokenStore({ accounts: [{ appId: 'wxnotatwechatapp', secret: 'x' }] });
    const failure = store.getToken('wxnotatwechatapp');
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({
      code: 'token_error',
      retryable: false,
      details: { errcode: 40013 },
    });
    expect(await storedToken()).toBeUndefined();
  });

  it('reports an unreachable token endpoint as a retryable token_error without an errcode', async () => {
    await sim.close();
    await expect(tokenStore().getToken(ACCOUNT.appId)).rejects.toMatchObject({
      code: 'token_error',
      retryable: true,
      details: { errcode: null },
    });
  });

  it('refuses an account that is not configured', async () => {
    await expect(tokenStore().getToken('wxsomeoneelse')).rejects.toMatchObject({ code: 'unknown_account' });
  });
});

describe('wechat client', () => {
  it('sends a customer-service message with touser added', async () => {
    const result = await client(tokenStore()).sendCustom(ACCOUNT.appId, 'oFollower', TEXT);
    expect(result).toEqual({ errcode: 0, errmsg: 'ok', durationMs: expect.any(Number) as number });
    expect(sim.messages().map((m) => m.body)).toEqual([{ touser: 'oFollower', ...TEXT }]);
  });

  it('on an invalidated token expires it, retries exactly once with a fresh one, and delivers once', async () => {
    const wechat = client(tokenStore());
    await wechat.sendCustom(ACCOUNT.appId, 'oFirst', TEXT);
    const before = await storedToken();
    await invalidateTokens();
    const result = await wechat.sendCustom(ACCOUNT.appId, 'oSecond', TEXT);
    expect(result.errcode).toBe(0);
    expect(sim.messages().map((m) => m.openid)).toEqual(['oFirst', 'oSecond']);
    expect(sim.stats().rejectedByErrcode).toEqual({ 40001: 1 });
    expect(stableCalls()).toBe(2);
    expect(await storedToken()).not.toBe(before);
  });

  it('returns the token error when the one retry fails the same way', async () => {
    sim.setFaults({ forceErrcode: 40001 });
    const result = await client(tokenStore()).sendCustom(ACCOUNT.appId, 'o1', TEXT);
    expect(result.errcode).toBe(40001);
    expect(sim.stats().errorsInjected).toBe(2);
  });

  it('does not retry -1 itself', async () => {
    sim.setFaults({ errorRate: 1 });
    const result = await client(tokenStore()).sendCustom(ACCOUNT.appId, 'o1', TEXT);
    expect(result).toMatchObject({ errcode: -1, errmsg: 'system error' });
    expect(sim.stats().errorsInjected).toBe(1);
  });

  it('answers errcode null when WeChat does not answer in time', async () => {
    const wechat = client(tokenStore(), 300);
    await wechat.sendCustom(ACCOUNT.appId, 'oWarmUp', TEXT);
    sim.setFaults({ hangMs: 3000, count: 1 });
    const result = await wechat.sendCustom(ACCOUNT.appId, 'oLate', TEXT);
    expect(result.errcode).toBeNull();
    expect(result.errmsg).toMatch(/^timeout/);
    // The request was written: WeChat may have acted on it.
    expect(result.answerLost).toBe(true);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(3000);
    expect(sim.messages().map((m) => m.openid)).toEqual(['oWarmUp']);
  });

  it('says the answer was lost when WeChat received the send but answered too late', async () => {
    const wechat = client(tokenStore(), 300);
    await wechat.sendCustom(ACCOUNT.appId, 'oWarmUp', TEXT);
    sim.setFaults({ latencyMs: 1500, count: 1 });
    const result = await wechat.sendCustom(ACCOUNT.appId, 'oSlow', TEXT);
    expect(result).toMatchObject({
      errcode: null,
      errmsg: 'timeout (UND_ERR_HEADERS_TIMEOUT)',
      answerLost: true,
    });
    // The simulator stands for a WeChat that sent it all the same.
    expect(await waitFor(() => sim.messages().some((m) => m.openid === 'oSlow'), 3000)).toBe(true);
  });

  it('does not say the answer was lost when the connection was refused: the send never left', async () => {
    const closed = createWechatClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      timeoutMs: 2000,
      maxConnections: 1,
      tokens: tokenStore(),
      logger: silentLogger,
    });
    clients.push(closed);
    const result = await closed.sendCustom(ACCOUNT.appId, 'oRefused', TEXT);
    expect(result).toMatchObject({ errcode: null, errmsg: 'network error (ECONNREFUSED)' });
    expect(result.answerLost).toBeUndefined();
  });

  it('passes a payload error through as WeChat answered it', async () => {
    const tooLong = aTextMessage('x'.repeat(2049));
    const result = await client(tokenStore()).sendCustom(ACCOUNT.appId, 'o1', tooLong);
    expect(result).toMatchObject({ errcode: 45002, errmsg: 'content size out of limit' });
  });

  it('sends a template message with the client_msg_id it is given and returns its msgid', async () => {
    const message = { template_id: 'TPL', data: { first: { value: 'Your order shipped' } } };
    const result = await client(tokenStore()).sendTemplate(ACCOUNT.appId, 'oBuyer', message, 'key-1');
    expect(result).toEqual({
      errcode: 0,
      errmsg: 'ok',
      msgid: expect.stringMatching(/^\d+$/) as string,
      durationMs: expect.any(Number) as number,
    });
    expect(sim.messages()).toEqual([
      expect.objectContaining({
        channel: 'template',
        body: { touser: 'oBuyer', ...message, client_msg_id: 'key-1' },
      }),
    ]);
  });

  it("keeps a template message's own client_msg_id", async () => {
    const message = { template_id: 'TPL', data: { first: { value: 'x' } }, client_msg_id: 'mine' };
    await client(tokenStore()).sendTemplate(ACCOUNT.appId, 'oBuyer', message, 'derived');
    expect(sim.messages().map((m) => (m.body as { client_msg_id: string }).client_msg_id)).toEqual(['mine']);
  });

  it('sends a template message again with the same client_msg_id: WeChat delivers it once', async () => {
    const wechat = client(tokenStore());
    const message = { template_id: 'TPL', data: { first: { value: 'x' } } };
    const key = clientMsgIdOf(randomUUID());
    const first = await wechat.sendTemplate(ACCOUNT.appId, 'oBuyer', message, key);
    const again = await wechat.sendTemplate(ACCOUNT.appId, 'oBuyer', message, key);
    expect(again).toMatchObject({ errcode: 0, msgid: first.msgid });
    expect(sim.messages()).toHaveLength(1);
  });

  it("derives a message's client_msg_id from its id: 32 lowercase hex characters, the same every time", () => {
    const id = '0E9A3C5B-1F2D-4E6A-8B7C-9D0E1F2A3B4C';
    expect(clientMsgIdOf(id)).toBe('0e9a3c5b1f2d4e6a8b7c9d0e1f2a3b4c');
    expect(clientMsgIdOf(id)).toBe(clientMsgIdOf(id.toLowerCase()));
  });

  it('rejects with the token error when no token can be had', async () => {
    const store = tokenStore({ accounts: [{ appId: ACCOUNT.appId, secret: 'wrong' }] });
    await expect(client(store).sendCustom(ACCOUNT.appId, 'o1', TEXT)).rejects.toMatchObject({
      code: 'token_error',
      retryable: false,
      details: { errcode: 40125 },
    });
  });
});
