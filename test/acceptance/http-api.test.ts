import { aKey, aMessageRequest, aTextMessage } from './support/builders';
import { expectRejected, untilReceived, untilStatus } from './support/expectations';
import type { BatchLine, MessageView } from './support/types';
import { call } from './support/http';
import { waitFor } from './support/wait-for';
import { APP_ID, startWorld, type World } from './support/world';

let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'http-api' });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const A_MINUTE = 60_000;

describe('HTTP API', () => {
  describe('POST /v1/messages', () => {
    it('answers 201 with the new message, 200 with the same row for a repeated idempotencyKey, 409 for the key with another request', async () => {
      const request = aMessageRequest({ idempotencyKey: aKey('idem'), delayMs: A_MINUTE });
      const first = await world.api('/v1/messages', { json: request });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        id: expect.any(String),
        dueAt: expect.any(String),
        status: expect.any(String),
      });

      const again = await world.api('/v1/messages', { json: request });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);

      const changed = await world.api('/v1/messages', {
        json: { ...request, message: aTextMessage('something else') },
      });
      expect(changed.status).toBe(409);
      expect(changed.body).toEqual({ error: expect.objectContaining({ code: 'idempotency_key_reused' }) });
      const timeline = await world.api.follower(APP_ID, request.openid);
      expect(timeline.messages.map((m) => m.id)).toEqual([first.body.id]);
    });

    it('answers an id shaped like a UUIDv7 whose timestamp is the due time, whatever day it is due (docs/api.md)', async () => {
      const dueIn3Days = new Date(Date.now() + 3 * 24 * 3_600_000);
      for (const request of [
        aMessageRequest({ sendAt: dueIn3Days.toISOString(), delayMs: undefined }),
        aMessageRequest({ delayMs: A_MINUTE }),
      ]) {
        const { status, body } = await world.api('/v1/messages', { json: request });
        expect(status).toBe(201);
        const id = (body as MessageView).id;
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        const timestamp = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
        expect(timestamp).toBe(Date.parse((body as MessageView).dueAt));
        // Found by it, wherever it is kept (in its day, or waiting for the pump).
        expect((await world.api(`/v1/messages/${id}`)).status).toBe(200);
      }
    });
  });

  describe('GET /v1/messages/:id', () => {
    it('shows the status and the delivery attempts of a message that was sent', async () => {
      const created = await world.api.schedule(aMessageRequest());
      const sent = await untilStatus(world.api, created.id, 'sent');
      expect(sent).toMatchObject({ attempts: 1, sentAt: expect.any(String) });
      expect(sent.deliveryAttempts).toHaveLength(1);
      expect(await world.sim.messages(created.openid!)).toHaveLength(1);
    });

    it('answers 404 JSON for an id that does not exist', async () => {
      const res = await world.api('/v1/messages/00000000-0000-4000-8000-000000000000');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
      });
    });
  });

  describe('DELETE /v1/messages/:id', () => {
    it('cancels an open message: it reads cancelled and is never sent', async () => {
      const created = await world.api.schedule(aMessageRequest({ delayMs: 300 }));
      const res = await world.api(`/v1/messages/${created.id}?reason=changed+plans`, { method: 'DELETE' });
      expect(res.status).toBe(200);
      expect((res.body as MessageView).status).toBe('cancelled');
      // Past its due time the worker has seen it: still cancelled, nothing received.
      const later = await untilStatus(world.api, created.id, 'cancelled');
      expect(later.sentAt).toBeNull();
      await world.api.schedule(
        aMessageRequest({ openid: created.openid!, delayMs: 600, message: aTextMessage('marker') }),
      );
      await untilReceived(world.sim, created.openid!, 'marker');
      expect(await world.sim.texts(created.openid!)).toEqual(['marker']);
    });

    it('answers 409 message_not_cancellable once the message was sent', async () => {
      const created = await world.api.schedule(aMessageRequest());
      await untilStatus(world.api, created.id, 'sent');
      const res = await world.api(`/v1/messages/${created.id}`, { method: 'DELETE' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: expect.objectContaining({ code: 'message_not_cancellable' }) });
      expect((await world.api.message(created.id)).status).toBe('sent');
    });
  });

  describe('POST /v1/messages/batch', () => {
    it('answers one result per line and a summary; a bad line does not stop the others and writes nothing', async () => {
      const good = [aMessageRequest({ delayMs: A_MINUTE }), aMessageRequest({ delayMs: A_MINUTE })];
      const bad = aMessageRequest({ message: { msgtype: 'no-such-type' } });
      const lines = await world.api.batch([good[0], bad, '{not json', good[1]]);

      expect(lines).toEqual<BatchLine[]>([
        expect.objectContaining({
          line: 1,
          ok: true,
          id: expect.any(String),
          status: expect.any(String),
          created: true,
        }),
        expect.objectContaining({
          line: 2,
          ok: false,
          error: expect.objectContaining({ code: expect.any(String) }),
        }),
        expect.objectContaining({
          line: 3,
          ok: false,
          error: expect.objectContaining({ code: expect.any(String) }),
        }),
        expect.objectContaining({ line: 4, ok: true, created: true }),
        { summary: { lines: 4, accepted: 2, rejected: 2 } },
      ]);
      expect((await world.api.follower(APP_ID, bad.openid)).messages).toEqual([]);
      for (const g of good) expect((await world.api.follower(APP_ID, g.openid)).messages).toHaveLength(1);
    });

    it('has one path: with a trailing slash it is a 404, one line or two, and schedules nothing', async () => {
      const requests = [aMessageRequest({ delayMs: A_MINUTE }), aMessageRequest({ delayMs: A_MINUTE })];
      for (const lines of [requests.slice(0, 1), requests]) {
        const res = await world.api('/v1/messages/batch/', {
          body: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
          headers: { 'content-type': 'application/x-ndjson' },
        });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      for (const r of requests) expect((await world.api.follower(APP_ID, r.openid)).messages).toEqual([]);
    });
  });

  it('every route of the contract answers 404 to its path with a trailing slash; the webhook answers as without it', async () => {
    const { paths } = (await world.api('/v1/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const answers: string[] = [];
    for (const [template, operations] of Object.entries(paths)) {
      const path = template.replace(/\{[^}]+\}/g, (p) =>
        p === '{id}' ? '00000000-0000-4000-8000-000000000000' : 'wxacceptance0001',
      );
      for (const method of Object.keys(operations)) {
        const res = await world.api(`${path}/`, {
          method: method.toUpperCase(),
          ...(method === 'get' || method === 'delete' ? {} : { json: {} }),
        });
        answers.push(`${method.toUpperCase()} ${template}/ ${res.status}`);
      }
    }
    const webhook = await fetch(
      `${world.api.url}/wechat/${APP_ID}/?signature=x&timestamp=1&nonce=1&echostr=e`,
    );
    expect(webhook.status).toBe(401);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((a) => !a.endsWith(' 404'))).toEqual([]);
  });

  describe('errors', () => {
    it('a request without the token gets 401 JSON and writes nothing', async () => {
      const request = aMessageRequest();
      const res = await fetch(`${world.api.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: expect.objectContaining({ code: expect.any(String) }) });
      expect((await world.api.follower(APP_ID, request.openid)).messages).toEqual([]);
    });

    it.each([
      ['openid', { openid: 'not an openid!' }],
      ['sendAt', { delayMs: undefined, sendAt: '2027-01-01T09:00:00' }],
      ['delayMs', { delayMs: -5 }],
      ['message', { message: { msgtype: 'text', text: {} } }],
      ['appId', { appId: 'wxnotconfigured01' }],
    ])('a bad %s gets a 400 naming it and writes nothing', async (field, change) => {
      const request = { ...aMessageRequest(), ...change };
      const res = await world.api('/v1/messages', { json: request });
      expectRejected(res, field, 400);
      expect((await world.api.follower(APP_ID, request.openid)).messages).toEqual([]);
    });

    it('malformed JSON gets 400 JSON', async () => {
      const res = await world.api('/v1/messages', {
        body: '{"appId":',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
      });
    });
  });

  // Last: it leaves this address throttled for a few seconds.
  describe('authentication', () => {
    it('answers 429 with Retry-After, whatever the token, once an address sent 20 wrong tokens in a minute; right tokens cost nothing', async () => {
      const wrong = () =>
        call(`${world.api.url}/v1/platform`, { headers: { authorization: 'Bearer wrong-token-guess' } });
      // Each wrong token between right ones: the right ones pass until the address has no failures left.
      let wrongTokens = 0;
      let throttled: Awaited<ReturnType<typeof wrong>> | undefined;
      while (!throttled && wrongTokens < 40) {
        const right = await world.api('/v1/platform');
        if (right.status === 429) throttled = right;
        else {
          expect(right.status).toBe(200);
          expect((await wrong()).status).toBe(401);
          wrongTokens++;
        }
      }
      // 20 a minute (one came from the 401 test above), refilled one every 3 s.
      expect(wrongTokens).toBeGreaterThanOrEqual(15);
      expect(wrongTokens).toBeLessThanOrEqual(20);
      expect(throttled?.body.error.code).toBe('too_many_requests');
      expect(Number(throttled?.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await wrong()).status).toBe(429);
      // A token comes back every 3 s.
      await waitFor(async () => (await world.api('/v1/platform')).status === 200, 'a token to come back', {
        timeoutMs: 20_000,
      });
    });
  });
});
