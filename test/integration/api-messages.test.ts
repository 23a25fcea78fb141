import type { Service } from '../../src/main/start-service';
import { countOwedWakeUps } from '../../src/store/wake-up-outbox';
import {
  API_READINESS_CHECKS,
  APP_ID,
  createHarness,
  type Harness,
  waitFor,
  writtenRows,
} from '../helpers/harness';
import { aMessageRequest, aTextMessage } from '../helpers/builders';

let h: Harness;
let api: Service;

beforeAll(async () => {
  h = await createHarness({ ROLE: 'api' });
  api = await h.start();
});
afterAll(() => h.close());

const post = (body: unknown, init: RequestInit = {}) =>
  h.api(api, '/v1/messages', {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });

describe('POST /v1/messages', () => {
  it('accepts a message, answers 201 with its id and due time, and queues a wake-up', async () => {
    const before = Date.now();
    const res = await post(
      aMessageRequest({
        openid: 'o-accept',
        message: aTextMessage('你好，欢迎关注'),
        delayMs: 60_000,
      }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBeNull(); // no hash of every answer for conditional GETs
    const body = (await res.json()) as { id: string; dueAt: string; status: string; message: unknown };
    expect(Date.parse(body.dueAt) - before).toBeGreaterThanOrEqual(60_000);
    expect(body.message).toEqual(aTextMessage('你好，欢迎关注'));
    expect(body.status).toBe('queued');
    // Its wake-up confirmed: the outbox entry written with the row is gone.
    expect(await waitFor(async () => (await countOwedWakeUps(h.db.pool)) === 0, 5000)).toBe(true);
  });

  it('treats a sendAt in the past as now', async () => {
    const res = await post(
      aMessageRequest({
        openid: 'o-past',
        message: aTextMessage('x'),
        sendAt: '2020-01-01T00:00:00+08:00',
      }),
    );
    expect(res.status).toBe(201);
    const body = (await res.json()) as { dueAt: string };
    expect(Math.abs(Date.parse(body.dueAt) - Date.now())).toBeLessThan(5000);
  });

  it('returns the existing row with 200 for a repeated idempotency key, and 409 when the request differs', async () => {
    const req = aMessageRequest({
      openid: 'o-idem',
      message: aTextMessage('once'),
      delayMs: 60_000,
      idempotencyKey: 'k-1',
    });
    const first = (await (await post(req)).json()) as { id: string };
    const again = await post(req);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(first.id);
    const differs = await post({ ...req, message: aTextMessage('twice') });
    expect(differs.status).toBe(409);
    expect(((await differs.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_reused');
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM scheduled_messages WHERE idempotency_key = 'k-1'`,
    );
    expect(rows[0].n).toBe(1);
  });

  describe('bad input: a clear JSON error and nothing written', () => {
    const cases: [string, () => Promise<Response>, number, string][] = [
      ['malformed JSON', () => post('{"appId": '), 400, 'malformed_json'],
      [
        'an unknown msgtype',
        () => post({ appId: APP_ID, openid: 'o1', message: { msgtype: 'fax', fax: {} } }),
        400,
        'validation_error',
      ],
      [
        'a missing openid',
        () => post({ appId: APP_ID, message: aTextMessage('x') }),
        400,
        'validation_error',
      ],
      [
        'an unconfigured appId',
        () => post({ appId: 'wxnobody', openid: 'o1', message: aTextMessage('x') }),
        400,
        'validation_error',
      ],
      [
        'a sendAt beyond the schedule horizon',
        () =>
          post({ appId: APP_ID, openid: 'o1', message: aTextMessage('x'), sendAt: '2099-01-01T00:00:00Z' }),
        400,
        'validation_error',
      ],
      [
        'a sendAt without a time zone',
        () =>
          post({ appId: APP_ID, openid: 'o1', message: aTextMessage('x'), sendAt: '2027-01-01T09:00:00' }),
        400,
        'validation_error',
      ],
      [
        'both sendAt and delayMs',
        () =>
          post(
            aMessageRequest({
              openid: 'o1',
              message: aTextMessage('x'),
              delayMs: 1,
              sendAt: '2027-01-01T09:00:00Z',
            }),
          ),
        400,
        'validation_error',
      ],
      [
        'a body that is not JSON',
        () => post('appId=x', { headers: { 'content-type': 'text/plain' } }),
        400,
        'validation_error',
      ],
      [
        'a wrong token',
        () =>
          post(
            { appId: APP_ID, openid: 'o1', message: aTextMessage('x') },
            { headers: { authorization: 'Bearer nope' } },
          ),
        401,
        'unauthorized',
      ],
      [
        'no token',
        () => fetch(`${api.url}/v1/messages`, { method: 'POST', body: '{}' }),
        401,
        'unauthorized',
      ],
      [
        'an oversized body',
        () => post({ appId: APP_ID, openid: 'o1', message: aTextMessage('x'.repeat(70_000)) }),
        413,
        'body_too_large',
      ],
    ];

    it.each(cases)('%s', async (_name, send, status, code) => {
      const before = await writtenRows(h.db);
      const res = await send();
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(0);
      expect(await writtenRows(h.db)).toEqual(before);
    });

    it('names every problem of a request at once, with its path', async () => {
      const res = await post({
        appId: 'wxnobody',
        openid: 'o1',
        message: aTextMessage(''),
      });
      const body = (await res.json()) as { error: { details: { path: string }[] } };
      expect(body.error.details.map((d) => d.path)).toEqual(
        expect.arrayContaining(['appId', 'message.text.content']),
      );
    });
  });
});

describe('GET and DELETE /v1/messages/:id', () => {
  it('cancels an open message once, records who and why, and says 409 for a second kind of change', async () => {
    const { id } = (await (
      await post({ appId: APP_ID, openid: 'o-del', message: aTextMessage('x'), delayMs: 60_000 })
    ).json()) as {
      id: string;
    };
    const del = await h.api(api, `/v1/messages/${id}?reason=${encodeURIComponent('user asked')}`, {
      method: 'DELETE',
    });
    expect(del.status).toBe(200);
    expect(((await del.json()) as { status: string }).status).toBe('cancelled');
    const again = await h.api(api, `/v1/messages/${id}`, { method: 'DELETE' });
    expect(again.status).toBe(200);
    const ledger = await h.db.pool.query(`SELECT scope, reason, actor FROM cancellations WHERE target = $1`, [
      id,
    ]);
    expect(ledger.rows).toEqual([{ scope: 'message', reason: 'user asked', actor: 'api' }]);
  });

  it('answers 409 when the message was already sent, and changes nothing', async () => {
    const { id } = (await (
      await post({ appId: APP_ID, openid: 'o-sent', message: aTextMessage('x'), delayMs: 60_000 })
    ).json()) as {
      id: string;
    };
    await h.db.pool.query(`UPDATE scheduled_messages SET status = 'sent', sent_at = now() WHERE id = $1`, [
      id,
    ]);
    const before = await writtenRows(h.db);
    const res = await h.api(api, `/v1/messages/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('message_not_cancellable');
    expect(await writtenRows(h.db)).toEqual(before);
    const get = (await (await h.api(api, `/v1/messages/${id}`)).json()) as { status: string };
    expect(get.status).toBe('sent');
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expect((await h.api(api, '/v1/messages/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await h.api(api, '/v1/messages/not-a-uuid')).status).toBe(404);
  });
});

describe('POST /v1/cancellations', () => {
  it('cancels by key with one ledger row, reads back as cancelled, and spares a later message with the same key', async () => {
    const make = () =>
      post({
        appId: APP_ID,
        openid: 'o-key',
        message: aTextMessage('x'),
        delayMs: 60_000,
        cancelKey: 'meeting-42',
      });
    const a = (await (await make()).json()) as { id: string };
    const b = (await (await make()).json()) as { id: string };
    const res = await h.api(api, '/v1/cancellations', {
      method: 'POST',
      body: JSON.stringify({ appId: APP_ID, cancelKey: 'meeting-42', reason: 'meeting moved' }),
    });
    expect(res.status).toBe(201);
    expect((await res.json()) as { matched: number; scope: string }).toMatchObject({
      matched: 2,
      scope: 'cancel_key',
    });
    const later = (await (await make()).json()) as { id: string };
    const status = async (id: string) =>
      ((await (await h.api(api, `/v1/messages/${id}`)).json()) as { status: string }).status;
    expect(await status(a.id)).toBe('cancelled');
    expect(await status(b.id)).toBe('cancelled');
    expect(await status(later.id)).not.toBe('cancelled');
  });

  it('refuses a cancellation naming both a key and a follower, writing nothing', async () => {
    const before = await writtenRows(h.db);
    const res = await h.api(api, '/v1/cancellations', {
      method: 'POST',
      body: JSON.stringify({ appId: APP_ID, cancelKey: 'k', openid: 'o', reason: 'r' }),
    });
    expect(res.status).toBe(400);
    expect(await writtenRows(h.db)).toEqual(before);
  });
});

describe('health', () => {
  it('answers /healthz, and on the ops listener /readyz with Postgres, migrations, RabbitMQ, the accounts, the API keys and the transport', async () => {
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    const ready = await waitFor(async () => (await fetch(`${api.opsUrl}/readyz`)).status === 200, 5000);
    expect(ready).toBe(true);
    const body = (await (await fetch(`${api.opsUrl}/readyz`)).json()) as {
      checks: Record<string, { ok: boolean; detail?: string }>;
    };
    expect(Object.keys(body.checks)).toEqual(API_READINESS_CHECKS);
    expect(body.checks.transport.detail).toMatch(/^levels/);
  });
});

describe('POST /v1/messages/batch', () => {
  const ndjson = (body: string) =>
    h.api(api, '/v1/messages/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
    });

  it('accepts the good lines, reports each bad one with its line number, and ends with a summary', async () => {
    const good = (n: number) =>
      JSON.stringify({
        appId: APP_ID,
        openid: `o-batch-${n}`,
        message: aTextMessage(`第${n}条`),
        delayMs: 60_000,
      });
    const before = await writtenRows(h.db);
    const res = await ndjson(
      [
        good(1),
        '{"appId":',
        '',
        good(2),
        JSON.stringify({ appId: APP_ID, message: aTextMessage('x') }),
        good(3),
      ].join('\n'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.line, l.ok, l.error?.code])).toEqual([
      [1, true, undefined],
      [2, false, 'malformed_json'],
      [4, true, undefined],
      [5, false, 'validation_error'],
      [6, true, undefined],
      [undefined, undefined, undefined],
    ]);
    expect(lines.at(-1)).toEqual({ summary: { lines: 6, accepted: 3, rejected: 2 } });
    expect((await writtenRows(h.db)).messages).toBe(before.messages + 3);
  });

  it('keeps Chinese text intact where a character straddles two network chunks', async () => {
    // ~190 KB of 3-byte characters: chunk boundaries (16–64 KiB) fall inside characters.
    const content = (n: number) => `${n}:${'欢迎关注'.repeat(150)}`;
    const body = Array.from({ length: 100 }, (_, n) =>
      JSON.stringify({ appId: APP_ID, openid: 'o-utf8', message: aTextMessage(content(n)), delayMs: 60_000 }),
    ).join('\n');
    const results = (await (await ndjson(body)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.at(-1)).toEqual({ summary: { lines: 100, accepted: 100, rejected: 0 } });
    const { rows } = await h.db.pool.query(
      `SELECT payload->'text'->>'content' AS content FROM scheduled_messages WHERE openid = 'o-utf8'`,
    );
    expect(new Set(rows.map((r) => r.content))).toEqual(
      new Set(Array.from({ length: 100 }, (_, n) => content(n))),
    );
  });

  it('rejects a line over 64 KiB as line_too_long, even when it is valid JSON, and accepts the lines around it', async () => {
    const template = (value: string) =>
      JSON.stringify(
        aMessageRequest({
          openid: 'o-long',
          channel: 'template',
          message: { template_id: 't', data: { note: { value } } },
          delayMs: 60_000,
        }),
      );
    const before = await writtenRows(h.db);
    const results = (
      await (await ndjson([template('a'), template('x'.repeat(70_000)), template('b')].join('\n'))).text()
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((l) => [l.line, l.ok, l.error?.code])).toEqual([
      [1, true, undefined],
      [2, false, 'line_too_long'],
      [3, true, undefined],
      [undefined, undefined, undefined],
    ]);
    expect((await writtenRows(h.db)).messages).toBe(before.messages + 2);
  });

  it('answers rejected lines while the body is still arriving, in line order', async () => {
    // Before the answer streamed, rejections waited in memory for 500 valid lines or the end of the body.
    const bad = `${JSON.stringify({ appId: 'wxnobody', openid: 'o-stream', message: aTextMessage('x') })}\n`;
    let sendMore!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (sendMore = c) });
    sendMore.enqueue(new TextEncoder().encode(bad.repeat(2_000)));
    // Waiting for the first answer line is bounded: the request is aborted (and the test fails) after 10 s.
    const gaveUp = new AbortController();
    const timer = setTimeout(() => gaveUp.abort(), 10_000);
    const res = await h.api(api, '/v1/messages/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
      signal: gaveUp.signal,
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader.read();
    clearTimeout(timer);
    expect(JSON.parse(first.value!.split('\n')[0])).toMatchObject({ line: 1, ok: false });
    sendMore.close();
    let rest = first.value!;
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    const lines = rest
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, -1).map((l) => l.line)).toEqual(Array.from({ length: 2_000 }, (_, i) => i + 1));
    expect(lines.at(-1)).toEqual({ summary: { lines: 2_000, accepted: 0, rejected: 2_000 } });
  });

  it('is idempotent per line: a retried batch with the same keys creates nothing new', async () => {
    const body = [1, 2, 3]
      .map((n) =>
        JSON.stringify(
          aMessageRequest({
            openid: 'o-retry',
            message: aTextMessage(`${n}`),
            delayMs: 60_000,
            idempotencyKey: `b-${n}`,
          }),
        ),
      )
      .join('\n');
    await ndjson(body);
    const before = await writtenRows(h.db);
    const again = (await (await ndjson(body)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(again.slice(0, 3).map((l) => l.created)).toEqual([false, false, false]);
    expect(await writtenRows(h.db)).toEqual(before);
  });
});

describe('request ids', () => {
  it('echoes a caller X-Request-Id (or a new one) and keeps it on the message for the send logs', async () => {
    const res = await post(
      { appId: APP_ID, openid: 'o-rid', message: aTextMessage('x'), delayMs: 60_000 },
      { headers: { 'x-request-id': 'caller-abc-123' } },
    );
    expect(res.headers.get('x-request-id')).toBe('caller-abc-123');
    const { id } = (await res.json()) as { id: string };
    const { rows } = await h.db.pool.query('SELECT request_id FROM scheduled_messages WHERE id = $1', [id]);
    expect(rows[0].request_id).toBe('caller-abc-123');
    const fresh = await post(
      { appId: APP_ID, openid: 'o-rid', message: aTextMessage('y'), delayMs: 60_000 },
      { headers: { 'x-request-id': 'bad id with spaces' } },
    );
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
