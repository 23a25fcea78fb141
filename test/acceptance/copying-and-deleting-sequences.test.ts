import { anAccountRequest, anOpenid, aSequence, aStep, aTextMessage } from './support/builders';
import { expectRejected } from './support/expectations';
import { startWorld, type World } from './support/world';

// docs/sequences.md "Copying and deleting sequences": POST /v1/sequences/:id/duplicate copies a sequence
// as a draft; DELETE /v1/sequences/:id removes a draft or an archived sequence that never enrolled
// anyone, and refuses the others with a 409 that says what to do.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'copy-delete', enforceWindow: false });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** An active sequence a follower can be enrolled in through the API, far-future steps (none is sent). */
const anApiSequence = async (overrides: object = {}) => {
  const created = await world.api('/v1/sequences', {
    json: aSequence({
      trigger: { type: 'api' },
      steps: [aStep({ offsetMs: 3_600_000, message: aTextMessage('一小时后') })],
      ...overrides,
    }),
  });
  expect(`${created.status} ${created.text.slice(0, 200)}`).toMatch(/^201 /);
  return created.body as { id: string; appId: string; name: string; steps: unknown[]; exits: unknown[] };
};

const enroll = async (sequenceId: string): Promise<void> => {
  const res = await world.api(`/v1/sequences/${sequenceId}/enrollments`, { json: { openid: anOpenid() } });
  expect(`${res.status} ${res.text.slice(0, 200)}`).toMatch(/^201 /);
};

const listedIds = async (): Promise<string[]> =>
  ((await world.api('/v1/sequences')).body.sequences as { id: string }[]).map((s) => s.id);

const remove = (id: string) => world.api(`/v1/sequences/${id}`, { method: 'DELETE' });

describe('Copying and deleting sequences', () => {
  it('a copy is checked against its account’s rules as they are when it starts: refused, naming the step, while they forbid it', async () => {
    // An account without window rules: a follow sequence may send two hours later without a fallback.
    const account = anAccountRequest({ windowPolicy: 'none' });
    expect((await world.api('/v1/accounts', { json: account })).status).toBe(201);
    const late = aStep({ offsetMs: 2 * 3_600_000, message: aTextMessage('两小时后') });
    const original = await world.api('/v1/sequences', {
      json: aSequence({ appId: account.appId, steps: [aStep(), late], status: 'draft' }),
    });
    expect(original.status).toBe(201);
    const copy = (
      await world.api(`/v1/sequences/${(original.body as { id: string }).id}/duplicate`, { json: {} })
    ).body as { id: string };

    // WeChat's rules now: a follow allows 3 messages within 1 minute.
    const policy = (windowPolicy: string) =>
      world.api(`/v1/accounts/${account.appId}`, { method: 'PATCH', json: { windowPolicy } });
    expect((await policy('official')).status).toBe(200);
    const refused = await world.api(`/v1/sequences/${copy.id}/activate`, { json: {} });
    const body = expectRejected(refused, 'steps.1', 400);
    expect(body.error.details).toEqual([
      expect.objectContaining({ path: 'steps.1', rule: expect.objectContaining({ kind: 'window_late' }) }),
    ]);
    expect((await world.api(`/v1/sequences/${copy.id}`)).body).toEqual(
      expect.objectContaining({ status: 'draft' }),
    );

    expect((await policy('none')).status).toBe(200);
    const started = await world.api(`/v1/sequences/${copy.id}/activate`, { json: {} });
    expect(started.status).toBe(200);
    expect(started.body).toEqual(expect.objectContaining({ status: 'active' }));
  });

  it('a copy is a new draft, version 1, with the same definition and no enrollments; the original is unchanged', async () => {
    const original = await anApiSequence({
      exits: [{ type: 'message', keyword: '退订' }],
      oncePerFollower: true,
      quietHours: { start: '22:00', end: '08:00' },
    });
    // A second version, and a follower enrolled: neither is the copy's.
    const edited = await world.api(`/v1/sequences/${original.id}`, {
      method: 'PUT',
      json: {
        ...aSequence(),
        name: original.name,
        trigger: { type: 'api' },
        steps: original.steps,
        exits: original.exits,
        oncePerFollower: true,
        quietHours: { start: '22:00', end: '08:00' },
      },
    });
    expect(edited.status).toBe(200);
    await enroll(original.id);

    const copied = await world.api(`/v1/sequences/${original.id}/duplicate`, {
      json: { name: `${original.name}（副本）` },
    });

    expect(copied.status).toBe(201);
    expect(copied.body).toMatchObject({
      appId: original.appId,
      name: `${original.name}（副本）`,
      status: 'draft',
      version: 1,
      trigger: { type: 'api' },
      steps: original.steps,
      exits: [{ type: 'message', keyword: '退订' }],
      oncePerFollower: true,
      quietHours: { start: '22:00', end: '08:00' },
      paths: {},
    });
    expect(copied.body.id).not.toBe(original.id);
    expect((await world.api(`/v1/sequences/${copied.body.id}/results`)).body).toMatchObject({ enrolled: 0 });
    expect((await world.api(`/v1/sequences/${original.id}`)).body).toMatchObject({
      name: original.name,
      status: 'active',
      version: 2,
    });
    expect((await world.api(`/v1/sequences/${original.id}/results`)).body).toMatchObject({ enrolled: 1 });
    expect(await listedIds()).toEqual(expect.arrayContaining([original.id, copied.body.id]));
  });

  it('without a body the copy keeps the name; an archived sequence may be copied too', async () => {
    const original = await anApiSequence();
    expect((await world.api(`/v1/sequences/${original.id}/archive`, { method: 'POST' })).status).toBe(200);

    const copied = await world.api(`/v1/sequences/${original.id}/duplicate`, { method: 'POST' });

    expect(copied.status).toBe(201);
    expect(copied.body).toMatchObject({ name: original.name, status: 'draft', version: 1 });
  });

  it('refuses a bad name (400 naming name), an unknown field (400) or an unknown sequence (404), and creates nothing', async () => {
    const original = await anApiSequence();
    const before = await listedIds();

    expectRejected(
      await world.api(`/v1/sequences/${original.id}/duplicate`, { json: { name: '   ' } }),
      'name',
      400,
    );
    expectRejected(
      await world.api(`/v1/sequences/${original.id}/duplicate`, { json: { name: 'x'.repeat(101) } }),
      'name',
      400,
    );
    expectRejected(
      await world.api(`/v1/sequences/${original.id}/duplicate`, { json: { status: 'active' } }),
      'status',
      400,
    );
    const unknown = await world.api('/v1/sequences/00000000-0000-4000-8000-000000000000/duplicate', {
      json: {},
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');

    expect((await listedIds()).sort()).toEqual([...before].sort());
  });

  it('deletes a draft: answers {id, deleted}, then GET and a second DELETE are 404 and the list no longer shows it', async () => {
    const draft = await anApiSequence({ status: 'draft' });

    const deleted = await remove(draft.id);

    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: draft.id, deleted: true });
    expect((await world.api(`/v1/sequences/${draft.id}`)).status).toBe(404);
    expect((await remove(draft.id)).status).toBe(404);
    expect(await listedIds()).not.toContain(draft.id);
  });

  it('refuses an active or paused sequence with 409 sequence_not_archived naming archive; archived, one that never enrolled anyone is deleted', async () => {
    const active = await anApiSequence();
    const paused = await anApiSequence();
    expect((await world.api(`/v1/sequences/${paused.id}/pause`, { method: 'POST' })).status).toBe(200);

    for (const [sequence, status] of [
      [active, 'active'],
      [paused, 'paused'],
    ] as const) {
      const refused = await remove(sequence.id);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'sequence_not_archived', details: { status } });
      expect(refused.body.error.message).toContain('archive it first');
      expect((await world.api(`/v1/sequences/${sequence.id}`)).body.status).toBe(status);
    }

    expect((await world.api(`/v1/sequences/${active.id}/archive`, { method: 'POST' })).status).toBe(200);
    expect((await remove(active.id)).body).toEqual({ id: active.id, deleted: true });
    expect((await world.api(`/v1/sequences/${active.id}`)).status).toBe(404);
  });

  it('refuses an archived sequence that enrolled followers with 409 sequence_has_history: its results stay', async () => {
    const used = await anApiSequence();
    await enroll(used.id);
    await enroll(used.id);
    const archived = await world.api(`/v1/sequences/${used.id}/archive`, { method: 'POST' });
    expect(archived.body).toMatchObject({ status: 'archived', cancelledSteps: 2 });

    const refused = await remove(used.id);

    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'sequence_has_history', details: { enrollments: 2 } });
    expect((await world.api(`/v1/sequences/${used.id}`)).body.status).toBe('archived');
    expect((await world.api(`/v1/sequences/${used.id}/results`)).body).toMatchObject({ enrolled: 2 });
  });

  it('answers 404 for an id that is not a sequence', async () => {
    expect((await remove('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await remove('not-a-uuid')).status).toBe(404);
  });
});
