import { randomUUID } from 'node:crypto';
import { anOpenid, aMessageRequest, aSequence, aStep, aTextMessage } from './support/builders';
import { untilReceived } from './support/expectations';
import { call, type Call } from './support/http';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/api.md "API keys": an integration's key schedules, cancels or reads — what it was given — for its
// accounts only; another account is, to it, not there; the admin routes refuse it; it is shown once, stored
// hashed, and refused from the moment it is revoked.
const OTHER_APP = 'wxacceptance0002';
let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'api-keys',
    accounts: [anAccount(), anAccount({ appId: OTHER_APP, secret: 'acceptance-secret-2' })],
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

interface CreatedKey {
  id: string;
  name: string;
  hint: string;
  accounts: string[];
  operations: string[];
  createdAt: string;
  revokedAt: string | null;
  key: string;
}

const createKey = async (body: object): Promise<CreatedKey> => {
  const answer = await world.api('/v1/keys', { json: body });
  expect(answer.status).toBe(201);
  return answer.body;
};

/** A request with `key` instead of the admin token. */
const withKey =
  (key: string) =>
  (path: string, c: Call = {}) =>
    world.api(path, { ...c, headers: { ...c.headers, authorization: `Bearer ${key}` } });

describe('API keys', () => {
  it('is shown once, listed by its last four characters, and written to the audit log without its value', async () => {
    const created = await createKey({ name: 'crm', accounts: [APP_ID], operations: ['schedule', 'read'] });

    expect(created.key).toMatch(/^wdk_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      name: 'crm',
      hint: `wdk_…${created.key.slice(-4)}`,
      accounts: [APP_ID],
      operations: ['schedule', 'read'],
      revokedAt: null,
    });
    const list = await world.api('/v1/keys');
    expect(list.status).toBe(200);
    const listed = list.body.keys.find((k: { id: string }) => k.id === created.id);
    expect(listed).toEqual({ ...created, key: undefined });
    expect(list.text.includes(created.key) ? 'the key is listed' : 'not listed').toBe('not listed');
    const audit = await world.api('/v1/audit');
    const entry = audit.body.entries.find((e: { target: { id: string } }) => e.target.id === created.id);
    expect(entry).toMatchObject({
      action: 'key.created',
      actor: { kind: 'admin_token' },
      target: { type: 'key', id: created.id },
      details: { name: 'crm', accounts: [APP_ID], operations: ['schedule', 'read'] },
    });
    expect(audit.text.includes(created.key) ? 'the key is in the log' : 'not in the log').toBe(
      'not in the log',
    );
  });

  it('schedules and reads for its own account; another account reads as one that does not exist', async () => {
    const { key } = await createKey({
      name: 'reminders',
      accounts: [APP_ID],
      operations: ['schedule', 'read'],
    });
    const api = withKey(key);
    const openid = anOpenid();

    const mine = await api('/v1/messages', {
      json: aMessageRequest({ openid, message: aTextMessage('from a key') }),
    });
    expect(mine.status).toBe(201);
    await untilReceived(world.sim, openid, 'from a key');
    expect((await api(`/v1/messages/${mine.body.id}`)).status).toBe(200);
    expect((await api(`/v1/followers/${APP_ID}/${openid}`)).status).toBe(200);

    // Another account's request is answered as one for an account that does not exist.
    const theirs = await api('/v1/messages', { json: aMessageRequest({ appId: OTHER_APP }) });
    const nowhere = await api('/v1/messages', { json: aMessageRequest({ appId: 'wxnosuchaccount1' }) });
    expect(theirs.status).toBe(400);
    expect(theirs.body.error.details).toEqual([
      expect.objectContaining({ path: 'appId', message: `no account ${OTHER_APP} is configured` }),
    ]);
    expect(nowhere.body.error.details).toEqual([
      expect.objectContaining({ path: 'appId', message: 'no account wxnosuchaccount1 is configured' }),
    ]);
    // The same through the batch, line by line.
    const batch = await api('/v1/messages/batch', {
      body: [aMessageRequest(), aMessageRequest({ appId: OTHER_APP })]
        .map((l) => JSON.stringify(l))
        .join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(batch.status).toBe(200);
    const lines = batch.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l: { ok: boolean }) => l.ok)).toEqual([true, false]);

    // Another account's message, follower and sequence: 404, as for ids nothing has.
    const other = await world.api.schedule(aMessageRequest({ appId: OTHER_APP, delayMs: 3_600_000 }));
    const read = await api(`/v1/messages/${other.id}`);
    expect(read.status).toBe(404);
    expect(read.body.error.message).toBe(`message ${other.id} not found`);
    expect((await api(`/v1/followers/${OTHER_APP}/${other.openid}`)).status).toBe(404);
    const sequence = await world.api.createSequence(
      aSequence({
        appId: OTHER_APP,
        trigger: { type: 'api' },
        steps: [aStep({ message: aTextMessage('x') })],
      }),
    );
    const enrolled = await api(`/v1/sequences/${sequence.id}/enrollments`, { json: { openid: anOpenid() } });
    expect(enrolled.status).toBe(404);
    expect(
      (await api(`/v1/followers/${OTHER_APP}/${anOpenid()}/events`, { json: { name: 'paid' } })).status,
    ).toBe(404);
    expect((await world.api.message(other.id)).status).toBe('queued');
  });

  it('does only its operations: a key that may not cancel is refused, and one that may cancels its own messages only', async () => {
    const scheduler = withKey(
      (await createKey({ name: 'scheduler', accounts: [APP_ID], operations: ['schedule'] })).key,
    );
    const canceller = withKey(
      (await createKey({ name: 'canceller', accounts: [APP_ID], operations: ['cancel'] })).key,
    );
    const mine = await world.api.schedule(aMessageRequest({ delayMs: 3_600_000, cancelKey: 'order-1' }));
    const theirs = await world.api.schedule(aMessageRequest({ appId: OTHER_APP, delayMs: 3_600_000 }));

    const refused = await scheduler(`/v1/messages/${mine.id}`, { method: 'DELETE' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('may not cancel'),
    });
    expect((await scheduler(`/v1/messages/${mine.id}`)).status).toBe(403);
    expect((await canceller('/v1/messages', { json: aMessageRequest() })).status).toBe(403);
    expect((await world.api.message(mine.id)).status).toBe('queued');

    const bulk = await canceller('/v1/cancellations', {
      json: { ids: [mine.id, theirs.id], reason: 'order paid' },
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.results).toEqual([
      { id: mine.id, outcome: 'cancelled', status: 'cancelled' },
      { id: theirs.id, outcome: 'not_found' },
    ]);
    expect((await world.api.message(theirs.id)).status).toBe('queued');
    const byKey = await canceller('/v1/cancellations', {
      json: { appId: OTHER_APP, cancelKey: 'order-1', reason: 'order paid' },
    });
    expect(byKey.status).toBe(400);
    expect(byKey.body.error.details).toEqual([
      expect.objectContaining({ path: 'appId', message: `no account ${OTHER_APP} is configured` }),
    ]);
    expect((await canceller(`/v1/messages/${theirs.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await world.api.message(theirs.id)).status).toBe('queued');
    const later = await world.api.schedule(aMessageRequest({ delayMs: 3_600_000, cancelKey: 'order-2' }));
    const own = await canceller('/v1/cancellations', {
      json: { appId: APP_ID, cancelKey: 'order-2', reason: 'order paid' },
    });
    expect(own.status).toBe(201);
    expect(own.body.matched).toBe(1);
    expect((await world.api.message(later.id)).status).toBe('cancelled');
  });

  it('is refused on every route that takes the admin token: accounts, sequences, the audit log, keys, the platform', async () => {
    const api = withKey(
      (
        await createKey({
          name: 'all of them',
          accounts: [APP_ID],
          operations: ['schedule', 'cancel', 'read'],
        })
      ).key,
    );
    const sequence = await world.api.createSequence(
      aSequence({ appId: APP_ID, trigger: { type: 'api' }, steps: [aStep({ message: aTextMessage('x') })] }),
    );
    const adminOnly: [string, Call][] = [
      ['/v1/accounts', {}],
      [`/v1/accounts/${APP_ID}`, { method: 'PATCH', json: { name: 'taken over' } }],
      ['/v1/sequences', {}],
      [`/v1/sequences/${sequence.id}`, {}],
      [`/v1/sequences/${sequence.id}/pause`, { method: 'POST' }],
      ['/v1/audit', {}],
      ['/v1/keys', {}],
      ['/v1/keys', { json: { name: 'more', accounts: [OTHER_APP], operations: ['read'] } }],
      ['/v1/platform/authorizations', { json: {} }],
    ];
    for (const [path, c] of adminOnly) {
      const answer = await api(path, c);
      expect([path, answer.status, answer.body?.error?.code]).toEqual([path, 403, 'forbidden']);
    }
    expect((await world.api(`/v1/accounts/${APP_ID}`)).body.name).not.toBe('taken over');
    // What a key may do, it does: enrol on its own account's sequence.
    const enrolled = await api(`/v1/sequences/${sequence.id}/enrollments`, { json: { openid: anOpenid() } });
    expect(enrolled.status).toBe(201);
  });

  it('is refused from the moment it is revoked, and revoking it again changes nothing', async () => {
    const created = await createKey({ name: 'leaked', accounts: [APP_ID], operations: ['schedule'] });
    const api = withKey(created.key);
    expect((await api('/v1/messages', { json: aMessageRequest({ delayMs: 3_600_000 }) })).status).toBe(201);

    const revoked = await world.api(`/v1/keys/${created.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(Date.parse(revoked.body.revokedAt)).toBeGreaterThan(Date.now() - 60_000);

    const after = await api('/v1/messages', { json: aMessageRequest({ delayMs: 3_600_000 }) });
    expect(after.status).toBe(401);
    expect((await api(`/v1/followers/${APP_ID}/${anOpenid()}`)).status).toBe(401);
    const again = await world.api(`/v1/keys/${created.id}`, { method: 'DELETE' });
    expect(again.body).toEqual(revoked.body);
    const audit = await world.api('/v1/audit');
    const entries = audit.body.entries.filter((e: { target: { id: string } }) => e.target.id === created.id);
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['key.revoked', 'key.created']);
    expect((await world.api(`/v1/keys/${randomUUID()}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('finds nothing of another account on any documented route: a probe of every operation with a key of one account', async () => {
    const api = withKey(
      (await createKey({ name: 'prober', accounts: [APP_ID], operations: ['schedule', 'cancel', 'read'] }))
        .key,
    );
    // The other account's things, each with a word that must not come back to the key.
    const SECRET = 'other-account-secret-words';
    const openid = anOpenid('o-other');
    const message = await world.api.schedule(
      aMessageRequest({
        appId: OTHER_APP,
        openid,
        delayMs: 3_600_000,
        cancelKey: 'order-b',
        message: aTextMessage(SECRET),
      }),
    );
    const sequence = await world.api.createSequence(
      aSequence({
        appId: OTHER_APP,
        name: SECRET,
        trigger: { type: 'api' },
        steps: [aStep({ message: aTextMessage(SECRET) })],
      }),
    );
    const keyId = (await world.api('/v1/keys')).body.keys[0].id as string;
    const params: Record<string, string> = {
      appId: OTHER_APP,
      openid,
      cancelKey: 'order-b',
      action: 'pause',
    };
    const idFor = (path: string) =>
      path.startsWith('/v1/messages') ? message.id : path.startsWith('/v1/keys') ? keyId : sequence.id;
    const body = {
      appId: OTHER_APP,
      openid,
      message: aTextMessage('probe'),
      ids: [message.id],
      reason: 'probe',
      name: 'probe',
      sendAt: new Date(Date.now() + 7_200_000).toISOString(),
    };
    const document = (await call(`${world.api.url}/v1/openapi.json`)).body as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    let probed = 0;
    for (const [template, operations] of Object.entries(document.paths)) {
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(name === 'id' ? idFor(template) : params[name]),
      );
      for (const [method, operation] of Object.entries(operations)) {
        // The contract document and its page are public: nothing of an account is in them.
        if (operation.security?.length === 0) continue;
        const answer = await api(path, {
          method: method.toUpperCase(),
          ...(method === 'get' || method === 'delete' ? {} : { json: body }),
        });
        probed++;
        // A batch answers 200 with a verdict per line: refused, every line of it.
        const refused =
          answer.status >= 300 || (template.endsWith('/batch') && !answer.text.includes('"ok":true'));
        expect([method, template, refused ? 'refused' : answer.status]).toEqual([
          method,
          template,
          'refused',
        ]);
        expect([method, template, answer.text.includes(SECRET)]).toEqual([method, template, false]);
      }
    }
    expect(probed).toBeGreaterThan(30);
    // And nothing of it changed.
    expect((await world.api.message(message.id)).status).toBe('queued');
    expect((await world.api(`/v1/sequences/${sequence.id}`)).body).toMatchObject({
      status: 'active',
      version: 1,
    });
  });

  it('refuses a bad key request with a 400 naming the field, and writes nothing', async () => {
    const before = (await world.api('/v1/keys')).body.keys.length;
    const bad: [object, string][] = [
      [{ name: 'x', accounts: ['wxnosuchaccount1'], operations: ['read'] }, 'accounts.0'],
      [{ name: 'x', accounts: [], operations: ['read'] }, 'accounts'],
      [{ name: 'x', accounts: [APP_ID, APP_ID], operations: ['read'] }, 'accounts'],
      [{ name: 'x', accounts: [APP_ID], operations: [] }, 'operations'],
      [{ name: 'x', accounts: [APP_ID], operations: ['delete'] }, 'operations.0'],
      [{ name: ' ', accounts: [APP_ID], operations: ['read'] }, 'name'],
      [{ name: 'x', accounts: [APP_ID], operations: ['read'], admin: true }, 'admin'],
    ];
    for (const [body, field] of bad) {
      const answer = await world.api('/v1/keys', { json: body });
      expect([field, answer.status, answer.body.error.code]).toEqual([field, 400, 'validation_error']);
      expect(answer.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    const nul = await world.api('/v1/keys', {
      json: { name: 'a\u0000b', accounts: [APP_ID], operations: ['read'] },
    });
    expect(nul.status).toBe(400);
    expect((await world.api('/v1/keys')).body.keys).toHaveLength(before);
    // A wrong key, or one of the right shape that nobody made: 401, as a wrong token.
    for (const token of ['wdk_nope', `wdk_${'A'.repeat(43)}`]) {
      expect((await withKey(token)('/v1/messages', { json: aMessageRequest() })).status).toBe(401);
    }
  });
});
