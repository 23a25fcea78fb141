import {
  aMessageRequest,
  anAccountRequest,
  anOpenid,
  aSequence,
  aStep,
  aTextMessage,
  type AccountRequest,
} from './support/builders';
import { leakEvidence } from './support/evidence';
import { expectRejected, untilFinal, untilReceived, untilStatus } from './support/expectations';
import { call } from './support/http';
import { stopProgram } from './support/processes';
import { createSimulatorClient, type SimulatorClient } from './support/simulator-client';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/accounts-and-platform.md "Accounts": accounts created, changed, disabled and deleted through /v1/accounts while the
// service runs, as two processes (api and worker) that each see every change without a restart.
const BOOTSTRAP = anAccount();
let world: World;
/** Every secret this file configures, through WECHAT_ACCOUNTS or the API. */
const secrets: string[] = [BOOTSTRAP.secret, BOOTSTRAP.token!, BOOTSTRAP.encodingAESKey!];

beforeAll(async () => {
  world = await startWorld({
    name: 'accounts',
    split: true,
    enforceWindow: false,
    env: { LOG_LEVEL: 'debug' },
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** Creates the account through the API and registers it with the simulator (WeChat's side of it). */
async function createAccount(
  overrides: Partial<AccountRequest> = {},
): Promise<{ body: AccountRequest; sim: SimulatorClient }> {
  const body = anAccountRequest(overrides);
  secrets.push(body.secret, body.token, body.encodingAESKey);
  const res = await world.api('/v1/accounts', { json: body });
  expect(`${res.status} ${res.text.slice(0, 300)}`).toMatch(/^201 /);
  const { windowPolicy, appId, secret, token, encodingAESKey, pushMode } = body;
  const registered = await call(`${world.sim.url}/__sim/accounts`, {
    json: { appId, secret, token, encodingAESKey, pushMode, windowPolicy },
  });
  expect(registered.status).toBe(200);
  return { body, sim: createSimulatorClient(world.sim.url, appId) };
}

const patch = (appId: string, json: object) => world.api(`/v1/accounts/${appId}`, { method: 'PATCH', json });

describe('Accounts', () => {
  it('uploads an image to the account’s permanent media and answers its media_id; a wrong type, empty or oversized body is refused, WeChat not asked', async () => {
    // A 1×1 PNG.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const upload = (body: Buffer, contentType: string) =>
      world.api(`/v1/accounts/${APP_ID}/media`, { body, headers: { 'content-type': contentType } });
    const before = (await world.sim.media()).length;
    const uploaded = await upload(png, 'image/png');
    expect(uploaded.status).toBe(201);
    const { mediaId } = uploaded.body as { mediaId: string };
    expect(uploaded.body).toEqual({
      appId: APP_ID,
      type: 'image',
      mediaId,
      url: expect.any(String),
      bytes: png.length,
    });
    expect((await world.sim.media()).slice(before)).toEqual([
      expect.objectContaining({
        mediaId,
        filename: 'image.png',
        contentType: 'image/png',
        bytes: png.length,
      }),
    ]);

    expectRejected(await upload(png, 'text/plain'), 'content-type', 400);
    expectRejected(await upload(Buffer.from('not an image'), 'image/png'), 'body', 400);
    expectRejected(await upload(Buffer.alloc(0), 'image/jpeg'), 'body', 400);
    const huge = Buffer.concat([png, Buffer.alloc(10 * 1024 * 1024)]);
    expect((await upload(huge, 'image/png')).status).toBe(413);
    expect(await world.sim.media()).toHaveLength(before + 1);
  });

  it('makes a parametric QR code for a scene, temporary or permanent, as WeChat does, with its PNG', async () => {
    const before = (await world.sim.qrcodes()).length;
    const temporary = await world.api(`/v1/accounts/${APP_ID}/qrcodes`, { json: { scene: 'spring-poster' } });
    expect(temporary.status).toBe(201);
    const code = temporary.body as { url: string; ticket: string; expiresAt: string | null; image: string };
    expect(code).toEqual(
      expect.objectContaining({ appId: APP_ID, scene: 'spring-poster', permanent: false }),
    );
    expect(code.url).toMatch(/^http:\/\/weixin\.qq\.com\/q\//);
    // 30 days unless asked otherwise.
    expect(Date.parse(code.expiresAt!) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const png = Buffer.from(code.image.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    const permanent = await world.api(`/v1/accounts/${APP_ID}/qrcodes`, {
      json: { scene: 'shop-door', permanent: true },
    });
    expect(permanent.status).toBe(201);
    expect((permanent.body as { expiresAt: string | null }).expiresAt).toBeNull();
    expect((await world.sim.qrcodes()).slice(before)).toEqual([
      expect.objectContaining({
        ticket: code.ticket,
        actionName: 'QR_STR_SCENE',
        scene: 'spring-poster',
        expireSeconds: 2_592_000,
      }),
      expect.objectContaining({ actionName: 'QR_LIMIT_STR_SCENE', scene: 'shop-door', expireSeconds: null }),
    ]);

    // A scene over WeChat's 64 characters, or a validity over 30 days: refused, naming it; WeChat not asked.
    for (const [json, path] of [
      [{ scene: 'x'.repeat(65) }, 'scene'],
      [{ scene: 'ok', expireSeconds: 2_592_001 }, 'expireSeconds'],
    ] as const) {
      expectRejected(await world.api(`/v1/accounts/${APP_ID}/qrcodes`, { json }), path, 400);
    }
    expect(await world.sim.qrcodes()).toHaveLength(before + 2);
    expect((await world.api('/v1/accounts/wxnosuchaccount1/qrcodes', { json: { scene: 'a' } })).status).toBe(
      404,
    );
  });

  it('an account created through the API, with no restart, receives a signed follow and its drip', async () => {
    const { body, sim } = await createAccount();
    const sequence = await world.api('/v1/sequences', {
      json: aSequence({
        appId: body.appId,
        steps: [aStep({ message: aTextMessage('welcome, new account') })],
      }),
    });
    expect(sequence.status).toBe(201);
    const openid = anOpenid();

    const push = await sim.follow(openid);

    expect(push.pushes).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);
    await untilReceived(sim, openid, 'welcome, new account');
  });

  it('a PATCH is seen by the api and the worker process within 2 s', async () => {
    // With the official policy a follower who never interacted has no open window: the worker skips
    // the message. Policy `none` (no local check) lets it through: which messages went out tells when
    // the worker saw the change.
    const { body } = await createAccount({ windowPolicy: 'official' });
    const before = await world.api.schedule(aMessageRequest({ appId: body.appId, delayMs: 0 }));
    expect((await untilFinal(world.api, before.id)).statusReason).toBe('window_closed');

    const changedAt = Date.now();
    const answer = await patch(body.appId, { windowPolicy: 'none' });
    const delays = [250, 500, 750, 1000, 1500, 2000, 2500];
    const probes = await Promise.all(
      delays.map((delayMs) => world.api.schedule(aMessageRequest({ appId: body.appId, delayMs }))),
    );
    const finals = await Promise.all(probes.map((p) => untilFinal(world.api, p.id)));

    expect(answer.body).toMatchObject({ policyName: 'none', windowPolicy: null });
    const firstSent = finals.findIndex((m) => m.status === 'sent');
    process.stdout.write(
      `accounts: the worker saw the PATCH within ${delays[firstSent]} ms (scheduled ${Date.now() - changedAt} ms ago)\n`,
    );
    expect(firstSent).toBeGreaterThanOrEqual(0);
    expect(delays[firstSent]).toBeLessThanOrEqual(2000);
    expect(finals.slice(firstSent).every((m) => m.status === 'sent')).toBe(true);
  });

  it('disabling skips the messages that fall due meanwhile as account_disabled; re-enabled, new ones go out', async () => {
    const { body, sim } = await createAccount({ windowPolicy: 'none' });
    expect((await patch(body.appId, { enabled: false })).body).toMatchObject({
      enabled: false,
      status: 'disabled',
    });
    const openid = anOpenid();
    const whileDisabled = await world.api.schedule(
      aMessageRequest({ appId: body.appId, openid, delayMs: 200 }),
    );
    expect(await untilFinal(world.api, whileDisabled.id)).toMatchObject({
      status: 'skipped',
      statusReason: 'account_disabled',
    });

    await patch(body.appId, { enabled: true });
    const afterwards = await world.api.schedule(
      aMessageRequest({ appId: body.appId, openid, delayMs: 200, message: aTextMessage('enabled again') }),
    );
    expect(await untilFinal(world.api, afterwards.id)).toMatchObject({ status: 'sent' });
    expect(await sim.texts(openid)).toEqual(['enabled again']);
  });

  it('deleting cancels the pending messages with one answer, and the account’s pushes are refused afterwards', async () => {
    const { body, sim } = await createAccount({ windowPolicy: 'none' });
    const openid = anOpenid();
    const pending = await world.api.schedule(aMessageRequest({ appId: body.appId, openid, delayMs: 1500 }));

    const deleted = await world.api(`/v1/accounts/${body.appId}`, { method: 'DELETE' });

    expect(deleted.body).toEqual({ appId: body.appId, deleted: true, cancelled: 1, archivedSequences: 0 });
    await untilStatus(world.api, pending.id, 'cancelled');
    expect((await world.api(`/v1/accounts/${body.appId}`)).status).toBe(404);
    const push = await sim.follow(openid);
    // Refused as a bad signature is (docs/webhook.md "Webhook security": no app id is told apart).
    expect(push.pushes.map((p) => p.status)).toEqual([401]);
    expect(await sim.messages(openid)).toEqual([]);
  });

  it('deleting archives its sequences in the same answer: they read archived, enroll no one, and cannot be copied', async () => {
    const { body } = await createAccount({ windowPolicy: 'none' });
    const sequenceOf = (overrides: object) =>
      world.api.createSequence(aSequence({ appId: body.appId, trigger: { type: 'api' }, ...overrides }));
    const active = await sequenceOf({ steps: [aStep({ offsetMs: 3_600_000 })] });
    const paused = await sequenceOf({});
    const draft = await sequenceOf({ status: 'draft' });
    expect((await world.api(`/v1/sequences/${paused.id}/pause`, { method: 'POST' })).status).toBe(200);
    const openid = anOpenid();
    const enrolled = await world.api(`/v1/sequences/${active.id}/enrollments`, { json: { openid } });
    expect(enrolled.status).toBe(201);

    const deleted = await world.api(`/v1/accounts/${body.appId}`, { method: 'DELETE' });

    expect(deleted.body).toEqual({ appId: body.appId, deleted: true, cancelled: 1, archivedSequences: 3 });
    const listed = await world.api(`/v1/sequences?appId=${body.appId}`);
    expect(listed.body.sequences.map((s: { status: string }) => s.status)).toEqual([
      'archived',
      'archived',
      'archived',
    ]);
    const again = await world.api(`/v1/sequences/${active.id}/enrollments`, { json: { openid: anOpenid() } });
    expect(again.status).toBe(409);
    expect((await world.api(`/v1/sequences/${active.id}/results`)).body).toMatchObject({ enrolled: 1 });
    const copy = await world.api(`/v1/sequences/${draft.id}/duplicate`, { json: {} });
    expect(copy.status).toBe(409);
    expect(copy.body.error).toMatchObject({ code: 'account_deleted', details: { appId: body.appId } });
  });

  it('refuses an app id that is a word of the webhook’s routes (`component`, `platform`, in any case): 400 naming appId, nothing written', async () => {
    for (const appId of ['component', 'platform', 'Platform']) {
      const res = await world.api('/v1/accounts', { json: anAccountRequest({ appId }) });
      expectRejected(res, 'appId', 400);
      expect((await world.api(`/v1/accounts/${appId}`)).status).toBe(404);
    }
  });

  it('deleted while its messages are being sent: those in flight go out once and are recorded sent, the rest are cancelled', async () => {
    const { body, sim } = await createAccount({ windowPolicy: 'none' });
    const openid = anOpenid();
    // WeChat answering slowly keeps the first three in flight when the account is deleted.
    await world.sim.setFaults({ latencyMs: 3000 });
    try {
      const inFlight = await Promise.all(
        [1, 2, 3].map(() => world.api.schedule(aMessageRequest({ appId: body.appId, openid }))),
      );
      const later = await world.api.schedule(aMessageRequest({ appId: body.appId, openid, delayMs: 60_000 }));
      await waitFor(
        async () =>
          (await Promise.all(inFlight.map((m) => world.api.message(m.id)))).every(
            (m) => m.status === 'sending',
          ),
        'the three to be in flight',
      );

      const deleted = await world.api(`/v1/accounts/${body.appId}`, { method: 'DELETE' });

      expect(deleted.body).toEqual({ appId: body.appId, deleted: true, cancelled: 1, archivedSequences: 0 });
      for (const m of inFlight) await untilStatus(world.api, m.id, 'sent');
      await untilStatus(world.api, later.id, 'cancelled');
      expect(await sim.messages(openid)).toHaveLength(3);
    } finally {
      await world.sim.clearFaults();
    }
  });

  it('never returns a secret: not in the list, not for one account, not after a PATCH', async () => {
    const { body } = await createAccount();
    const answers = [
      await world.api('/v1/accounts'),
      await world.api(`/v1/accounts/${body.appId}`),
      await patch(body.appId, { secret: `${body.secret}x`, previousEncodingAESKey: body.encodingAESKey }),
    ];
    secrets.push(`${body.secret}x`);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      for (const secret of secrets) expect(answer.text).not.toContain(secret);
    }
    expect(answers[2].body).toMatchObject({ hasSecret: true, hasPreviousEncodingAESKey: true });
  });

  it('keeps no configured secret in clear: not in a dump of the database, not in the processes’ logs', async () => {
    // Something to find: the worker fetched tokens and sent, the api recorded pushes, at debug level.
    await waitFor(async () => (await world.sim.stats()).tokens.issued > 0, 'a token to have been issued');
    const { dump, logs } = leakEvidence(world);

    expect(dump).toContain('COPY public.accounts');
    expect(logs.join('').length).toBeGreaterThan(0);
    // The cached access tokens too: a dump grants no API access (each row: app id, token, times).
    const tokenRows = /COPY public\.access_tokens [^\n]*\n([\s\S]*?)\n\\\./.exec(dump)?.[1].split('\n') ?? [];
    expect(tokenRows.length).toBeGreaterThan(0);
    for (const row of tokenRows) expect(row.split('\t')[1]).toMatch(/^v1\.[0-9a-f]{8}\./);
    for (const secret of secrets) {
      expect(dump.includes(secret) ? `${secret} in the dump` : 'absent').toBe('absent');
      for (const log of logs) expect(log.includes(secret) ? `${secret} in a log` : 'absent').toBe('absent');
    }
  });

  // Last: it deletes the account WECHAT_ACCOUNTS lists, which the tests above use.
  it('an account of WECHAT_ACCOUNTS deleted through the API stays deleted after a restart; created again, it is back', async () => {
    expect((await world.api(`/v1/accounts/${APP_ID}`, { method: 'DELETE' })).status).toBe(200);
    await stopProgram(world.service());
    await world.startService();

    expect((await world.api(`/v1/accounts/${APP_ID}`)).status).toBe(404);
    const listed = await world.api('/v1/accounts');
    expect(listed.body.accounts.map((a: { appId: string }) => a.appId)).not.toContain(APP_ID);
    // A push for it is refused, as for any unknown account.
    expect((await world.sim.follow(anOpenid('o-after-restart'))).pushes.map((p) => p.status)).toEqual([401]);

    const again = await world.api('/v1/accounts', {
      json: anAccountRequest({
        appId: APP_ID,
        secret: BOOTSTRAP.secret,
        token: BOOTSTRAP.token!,
        encodingAESKey: BOOTSTRAP.encodingAESKey!,
      }),
    });
    expect(again.status).toBe(201);
    await stopProgram(world.service());
    await world.startService();
    expect((await world.api(`/v1/accounts/${APP_ID}`)).status).toBe(200);
  });
});
