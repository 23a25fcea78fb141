import { anAccountRequest, aSequence, aStep, aTextMessage } from './support/builders';
import { startWorld, type World } from './support/world';

// docs/api.md "The audit log": every change of a sequence or an account through /v1 is an entry, written
// with the change; a refused request writes none; the log is read newest first, by account, a page at a time.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'audit', enforceWindow: false });
}, 60_000);
afterAll(() => world?.close(), 30_000);

interface Entry {
  id: string;
  at: string;
  actor: { kind: string };
  source: string;
  requestId: string | null;
  action: string;
  target: { type: string; id: string };
  appId: string | null;
  details: Record<string, unknown>;
}

const audit = async (query = ''): Promise<{ entries: Entry[]; next: string | null }> => {
  const answer = await world.api(`/v1/audit${query}`);
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('The audit log', () => {
  it('records each change with who, from where, which request, what and on what — newest first, never a secret', async () => {
    const account = anAccountRequest({ name: '春季课程公众号' });
    const created = await world.api('/v1/accounts', { json: account });
    expect(created.status).toBe(201);
    const newSecret = 'rotated-secret-never-in-the-log';
    const patched = await world.api(`/v1/accounts/${account.appId}`, {
      method: 'PATCH',
      json: { secret: newSecret, sendRatePerSecond: 20 },
      headers: { 'x-request-id': 'audit-patch-1' },
    });
    expect(patched.status).toBe(200);
    const sequence = await world.api.createSequence(
      aSequence({ appId: account.appId, name: '欢迎', steps: [aStep({ message: aTextMessage('hi') })] }),
    );
    const paused = await world.api(`/v1/sequences/${sequence.id}/pause`, { method: 'POST' });
    expect(paused.status).toBe(200);
    const copy = await world.api(`/v1/sequences/${sequence.id}/duplicate`, { json: { name: '欢迎 副本' } });
    expect(copy.status).toBe(201);
    expect((await world.api(`/v1/sequences/${copy.body.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await world.api(`/v1/accounts/${account.appId}`, { method: 'DELETE' })).status).toBe(200);

    const { entries } = await audit(`?appId=${account.appId}`);

    expect(entries.map((e) => [e.action, e.target.id])).toEqual([
      ['account.deleted', account.appId],
      ['sequence.deleted', copy.body.id],
      ['sequence.duplicated', copy.body.id],
      ['sequence.paused', sequence.id],
      ['sequence.created', sequence.id],
      ['account.updated', account.appId],
      ['account.created', account.appId],
    ]);
    for (const e of entries) {
      expect(e).toMatchObject({ actor: { kind: 'admin_token' }, source: '127.0.0.1', appId: account.appId });
      expect(Date.parse(e.at)).toBeGreaterThan(Date.now() - 60_000);
    }
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    expect(byAction['account.updated']).toMatchObject({
      requestId: 'audit-patch-1',
      details: { fields: ['secret', 'sendRatePerSecond'] },
    });
    expect(byAction['sequence.created'].details).toEqual({ name: '欢迎', status: 'active' });
    expect(byAction['sequence.duplicated'].details).toEqual({ name: '欢迎 副本', copyOf: sequence.id });
    expect(byAction['account.deleted'].details).toMatchObject({
      name: '春季课程公众号',
      archivedSequences: 1,
    });
    const text = JSON.stringify(entries);
    for (const secret of [account.secret, account.token, account.encodingAESKey, newSecret]) {
      expect(text.includes(secret) ? `${secret} in the log` : 'absent').toBe('absent');
    }
  });

  it('writes nothing for a refused change', async () => {
    const before = (await audit()).entries[0]?.id ?? null;
    const refused = await world.api('/v1/sequences', { json: { ...aSequence(), steps: [] } });
    expect(refused.status).toBe(400);
    const missing = await world.api('/v1/sequences/00000000-0000-4000-8000-000000000000/pause', {
      method: 'POST',
    });
    expect(missing.status).toBe(404);
    expect((await audit()).entries[0]?.id ?? null).toBe(before);
  });

  it('pages with `next`, and refuses a bad query naming it', async () => {
    for (let i = 0; i < 3; i++) await world.api.createSequence(aSequence({ name: `page ${i}` }));
    const first = await audit('?limit=2');
    expect(first.entries).toHaveLength(2);
    expect(first.next).toBe(first.entries[1].id);
    const second = await audit(`?limit=2&before=${first.next}`);
    expect(Number(second.entries[0].id)).toBeLessThan(Number(first.entries[1].id));
    expect(first.entries.map((e) => e.details.name)).toEqual(['page 2', 'page 1']);
    expect(second.entries[0].details.name).toBe('page 0');

    for (const [query, path] of [
      ['?limit=0', 'query.limit'],
      ['?limit=201', 'query.limit'],
      ['?before=abc', 'query.before'],
      ['?order=asc', 'query.order'],
    ]) {
      const bad = await world.api(`/v1/audit${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
  });
});
