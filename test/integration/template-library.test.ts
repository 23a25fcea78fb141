import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecretBox } from '../../src/accounts/secret-box';
import { createTokenSealer } from '../../src/accounts/service-tokens';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator';
import {
  createTemplateLibrary,
  type TemplateLibrary,
  type TemplateLibraryAnswer,
} from '../../src/wechat/template-library';
import { createTokenStore, type TokenStore } from '../../src/wechat/tokens';
import { aSimTemplate } from '../helpers/builders';
import { createTestDb, type TestDb } from '../helpers/db';
import { freePort } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';

const ACCOUNT = { appId: 'wxtpllibrary01', secret: 'secret-library' };
const LIST_PATH = '/cgi-bin/template/get_all_private_template';
const TTL_MS = 10 * 60_000;
const SEALER = createTokenSealer(createSecretBox(randomBytes(32)));

let db: TestDb;
let sim: Simulator;
let simUrl: string;
/** Forwards everything to the simulator and counts the template list calls that pass through it. */
let proxy: Server;
let proxyUrl: string;
let listCalls: number;
let clock: number;

beforeAll(async () => {
  db = await createTestDb({ poolSize: 2 });
});
afterAll(() => db.drop());

beforeEach(async () => {
  await db.pool.query('DELETE FROM access_tokens');
  sim = createSimulator({ accounts: [ACCOUNT], logger: silentLogger, enforceContactWindow: false });
  sim.registerTemplates(ACCOUNT.appId, [aSimTemplate('TPL-A')]);
  simUrl = (await sim.listen(0, '127.0.0.1')).url;
  listCalls = 0;
  clock = Date.parse('2026-03-02T08:00:00Z');
  proxy = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname === LIST_PATH) listCalls += 1;
    const target = new URL(req.url ?? '/', simUrl);
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterEach(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sim.close();
});

function tokenStore(): TokenStore {
  return createTokenStore({
    pool: db.pool,
    sealer: SEALER,
    baseUrl: simUrl,
    secretOf: (appId) => (appId === ACCOUNT.appId ? ACCOUNT.secret : undefined),
    refreshMarginMs: 240_000,
    timeoutMs: 2000,
    logger: silentLogger,
  });
}

function library(baseUrl = proxyUrl): TemplateLibrary {
  return createTemplateLibrary({
    baseUrl,
    timeoutMs: 2000,
    tokens: tokenStore(),
    ttlMs: TTL_MS,
    logger: silentLogger,
    now: () => clock,
  });
}

function idsOf(answer: TemplateLibraryAnswer): string[] {
  if (!answer.ok) throw new Error(`expected a list, got: ${answer.reason}`);
  return answer.templates.map((t) => t.templateId);
}

describe('template library cache', () => {
  it('answers a second call within the TTL from the cache, without asking WeChat', async () => {
    const lib = library();
    const first = await lib.templates(ACCOUNT.appId);
    expect(idsOf(first)).toEqual(['TPL-A']);
    expect(listCalls).toBe(1);

    clock += TTL_MS - 1;
    const second = await lib.templates(ACCOUNT.appId);
    expect(second).toBe(first);
    expect(listCalls).toBe(1);
  });

  it('fetches the list again once the TTL has passed, and sees a template added meanwhile', async () => {
    const lib = library();
    expect(idsOf(await lib.templates(ACCOUNT.appId))).toEqual(['TPL-A']);
    sim.registerTemplates(ACCOUNT.appId, [aSimTemplate('TPL-A'), aSimTemplate('TPL-B')]);

    clock += TTL_MS;
    const again = await lib.templates(ACCOUNT.appId);
    expect(idsOf(again)).toEqual(['TPL-A', 'TPL-B']);
    expect(listCalls).toBe(2);
    expect(again.ok && again.fetchedAt.getTime()).toBe(clock);
  });

  it('refetches for an expected id it lacks only when the cached list is older than 30 s', async () => {
    const lib = library();
    await lib.templates(ACCOUNT.appId);
    sim.registerTemplates(ACCOUNT.appId, [aSimTemplate('TPL-A'), aSimTemplate('TPL-NEW')]);

    clock += 29_999;
    expect(idsOf(await lib.templates(ACCOUNT.appId, ['TPL-NEW']))).toEqual(['TPL-A']);
    expect(listCalls).toBe(1);

    clock += 1;
    expect(idsOf(await lib.templates(ACCOUNT.appId, ['TPL-NEW']))).toEqual(['TPL-A', 'TPL-NEW']);
    expect(listCalls).toBe(2);

    // An expected id the (old enough) list holds does not fetch again.
    clock += 60_000;
    await lib.templates(ACCOUNT.appId, ['TPL-NEW']);
    expect(listCalls).toBe(2);
  });

  it('refetches when asked to refresh, unless the cached list is younger than 30 s', async () => {
    const lib = library();
    await lib.templates(ACCOUNT.appId);
    sim.registerTemplates(ACCOUNT.appId, [aSimTemplate('TPL-A'), aSimTemplate('TPL-NEW')]);
    clock += 29_999;
    expect(idsOf(await lib.templates(ACCOUNT.appId, [], true))).toEqual(['TPL-A']);
    clock += 1;
    expect(idsOf(await lib.templates(ACCOUNT.appId, [], true))).toEqual(['TPL-A', 'TPL-NEW']);
    expect(listCalls).toBe(2);
  });

  it('lists each template with the fields its content names, labelled', async () => {
    sim.registerTemplates(ACCOUNT.appId, [
      { ...aSimTemplate('TPL-C'), content: '课程名称：{{thing1.DATA}}\n开课时间：{{time2.DATA}}' },
    ]);
    const answer = await library().templates(ACCOUNT.appId);
    expect(answer.ok && answer.templates[0].fields).toEqual([
      { key: 'thing1', label: '课程名称' },
      { key: 'time2', label: '开课时间' },
    ]);
  });

  it('lets concurrent callers for one account share one fetch', async () => {
    const lib = library();
    const answers = await Promise.all([1, 2, 3, 4].map(() => lib.templates(ACCOUNT.appId)));
    expect(listCalls).toBe(1);
    for (const answer of answers) expect(answer).toBe(answers[0]);
    expect(idsOf(answers[0])).toEqual(['TPL-A']);
  });

  it('expires a token WeChat rejects and asks for the list once more, successfully', async () => {
    const lib = library();
    await lib.templates(ACCOUNT.appId);
    const tokensIssued = sim.stats().tokens.issued;
    expect(sim.invalidateTokens(ACCOUNT.appId)).toBeGreaterThan(0);
    sim.registerTemplates(ACCOUNT.appId, [aSimTemplate('TPL-C')]);

    clock += TTL_MS;
    const answer = await lib.templates(ACCOUNT.appId);
    expect(idsOf(answer)).toEqual(['TPL-C']);
    expect(listCalls).toBe(3);
    expect(sim.stats().tokens.issued).toBe(tokensIssued + 1);
  });

  it('answers {ok:false, reason} without rejecting when WeChat cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const answer = await library(closed).templates(ACCOUNT.appId);
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.reason).toEqual(expect.stringMatching(/\S/));
  });
});
