import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { aTextMessage } from './support/builders';
import { untilFinal } from './support/expectations';
import { call } from './support/http';
import { LOG_DIR, runProgram, stopProgram } from './support/processes';
import { createSimulatorClient } from './support/simulator-client';
import { waitFor } from './support/wait-for';
import { ACCOUNTS_ENCRYPTION_KEY, startWorld, type World } from './support/world';

// docs/operations.md "Rotating the encryption key", followed from the outside: a platform account
// connected through the simulated Open Platform (its refresh token, the component's ticket, the
// authorization code and the cached tokens all sealed), the key replaced, `npm run rotate-account-keys`,
// then a restart with only the new key.
const PLATFORM = {
  WECHAT_COMPONENT_APP_ID: 'wxcomponentrotate01',
  WECHAT_COMPONENT_SECRET: 'rotation-component-secret',
  WECHAT_COMPONENT_TOKEN: 'rotationcomponenttoken',
  WECHAT_COMPONENT_ENCODING_AES_KEY: 'RotationComponentAESKey0123456789abcdefghij',
};
/** Tokens live 2 s: those cached before the restart are gone after it, so the ticket and refresh token are needed. */
const TOKEN_TTL_MS = 2000;
const NEW_KEY = randomBytes(32).toString('base64');
const APP_ID = 'wxrotatedaccount01';
let world: World;

beforeAll(async () => {
  world = await startWorld({
    name: 'key-rotation',
    env: PLATFORM,
    // No ticket on a timer: the one pushed before the rotation is the only one the service has.
    simEnv: { ...PLATFORM, SIM_TICKET_INTERVAL_MS: '86400000', SIM_TOKEN_TTL_S: String(TOKEN_TTL_MS / 1000) },
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** Connects APP_ID through the simulated Open Platform, as an admin does from the authorization link. */
async function connectAccount(): Promise<void> {
  const started = await world.api('/v1/platform/authorizations', {
    json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
  });
  expect(started.status).toBe(201);
  const page = new URL(started.body.authorizationUrl as string);
  page.searchParams.set('sim_appid', APP_ID);
  const consented = await fetch(page, { redirect: 'manual' });
  expect((await call(consented.headers.get('location')!)).body).toMatchObject({ appId: APP_ID });
}

/** A text to a follower of APP_ID, through the platform: its final status. */
async function sendThroughPlatform(openid: string, text: string): Promise<string> {
  const sim = createSimulatorClient(world.sim.url, APP_ID);
  await sim.follow(openid);
  await waitFor(
    async () => (await world.api.follower(APP_ID, openid)).follower !== null,
    'the follow to be processed',
  );
  const message = await world.api.schedule({ appId: APP_ID, openid, message: aTextMessage(text) });
  return (await untilFinal(world.api, message.id)).status;
}

describe('Rotating the encryption key', () => {
  it('after the rotation and a restart with only the new key, platform accounts connect and send, and none pauses', async () => {
    const ticket = await call(`${world.sim.url}/__sim/component/ticket`, { method: 'POST' });
    expect(ticket.body).toMatchObject({ status: 200, body: 'success' });
    await connectAccount();
    expect(await sendThroughPlatform('o-before', 'before the rotation')).toBe('sent');

    // 1. The new key current, the old one previous; every process restarted.
    await stopProgram(world.service());
    const bothKeys = {
      ACCOUNTS_ENCRYPTION_KEY: NEW_KEY,
      ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: ACCOUNTS_ENCRYPTION_KEY,
    };
    await world.startService(bothKeys);
    // 2. npm run rotate-account-keys, with the same settings.
    const logName = `key-rotation-${randomBytes(4).toString('hex')}`;
    await runProgram(
      'rotate-account-keys',
      { DATABASE_URL: world.databaseUrl, LOG_LEVEL: 'warn', ...bothKeys },
      logName,
    );
    const report = readFileSync(path.join(LOG_DIR, `${logName}.log`), 'utf8');
    expect(report).toMatch(/account secret: \d+ of \d+ re-sealed/);
    expect(report).toContain('authorizer refresh token: 1 of 1 re-sealed');
    expect(report).toContain('component verify ticket: 1 of 1 re-sealed');
    expect(report).toContain('authorization code: 1 of 1 re-sealed');
    // 3. The old key removed; every process restarted.
    await stopProgram(world.service());
    const stoppedAt = Date.now();
    await world.startService({ ACCOUNTS_ENCRYPTION_KEY: NEW_KEY });
    await waitFor(
      async () => Date.now() - stoppedAt > TOKEN_TTL_MS,
      'the tokens cached before the restart to have expired',
    );

    const again = await world.api('/v1/platform/authorizations', {
      json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
    });
    expect(again.status).toBe(201);
    expect(await sendThroughPlatform('o-after', 'after the rotation')).toBe('sent');
    expect((await world.api(`/v1/accounts/${APP_ID}`)).body).toMatchObject({
      enabled: true,
      status: 'active',
    });

    // A second rotation finds nothing left to do.
    await runProgram(
      'rotate-account-keys',
      { DATABASE_URL: world.databaseUrl, LOG_LEVEL: 'warn', ACCOUNTS_ENCRYPTION_KEY: NEW_KEY },
      `${logName}-again`,
    );
    const second = readFileSync(path.join(LOG_DIR, `${logName}-again.log`), 'utf8');
    expect(second).toContain('0 sealed values re-sealed');
  }, 120_000);
});
