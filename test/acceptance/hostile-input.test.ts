import {
  aKey,
  aMessageRequest,
  anOpenid,
  aSequence,
  aStep,
  aTemplateMessage,
  aTextMessage,
} from './support/builders';
import { expectRejected, untilReceived } from './support/expectations';
import type { Call } from './support/http';
import type { BatchLine, ErrorBody } from './support/types';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'hostile-input',
    accounts: [anAccount({ windowPolicy: 'none' })],
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** Text no field may hold: Postgres refuses NUL in text, and a lone surrogate is not Unicode. */
const HOSTILE: readonly [string, string][] = [
  ['NUL', 'bad\u0000text'],
  ['a lone surrogate', 'bad\ud800text'],
];

/** Percent-encodes for a URL; a lone surrogate becomes the bytes a sloppy client would send for it. */
const urlPart = (s: string): string =>
  s
    .split(/([\ud800-\udfff])/)
    .map((part) => (/^[\ud800-\udfff]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');

const at = (path: string, value: unknown, into: Record<string, any>): Record<string, any> => {
  const keys = path.split('.');
  const copy = structuredClone(into);
  let node = copy;
  for (const k of keys.slice(0, -1)) node = node[k];
  node[keys[keys.length - 1]] = value;
  return copy;
};

/** Every text field of a create request, by its path (docs/api.md "HTTP API": "Create request"). */
const MESSAGE_FIELDS = [
  'appId',
  'openid',
  'message.text.content',
  'message.msgtype',
  'sendAt',
  'idempotencyKey',
  'cancelKey',
];
const TEMPLATE_FIELDS = ['message.template_id', 'message.data.thing1.value', 'message.url'];
const CANCELLATION_FIELDS = ['appId', 'cancelKey', 'reason'];
const SEQUENCE_FIELDS = [
  'appId',
  'name',
  'trigger.keyword',
  'steps.0.message.text.content',
  'steps.0.fallback.template_id',
];

describe.each(HOSTILE)('HTTP API: hostile input (%s)', (_label, bad) => {
  it.each(MESSAGE_FIELDS)(
    'POST /v1/messages with it in %s: a 4xx naming the field, nothing written',
    async (field) => {
      const request = aMessageRequest({
        delayMs: undefined,
        sendAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        idempotencyKey: aKey(),
        cancelKey: aKey(),
      });
      const res = await world.api('/v1/messages', { json: at(field, bad, request) });
      expectRejected(res, field.split('.').pop()!);
      expect((await world.api.follower(APP_ID, request.openid)).messages).toEqual([]);
    },
  );

  it.each(TEMPLATE_FIELDS)(
    'POST /v1/messages (template) with it in %s: a 4xx naming the field, nothing written',
    async (field) => {
      const request = aMessageRequest({
        channel: 'template',
        message: { ...aTemplateMessage(), url: 'https://example.com/a' },
      });
      const res = await world.api('/v1/messages', { json: at(field, bad, request) });
      expectRejected(res, field.split('.').pop()!);
      expect((await world.api.follower(APP_ID, request.openid)).messages).toEqual([]);
    },
  );

  it('POST /v1/messages/batch with it in a line: that line is rejected naming the field, the others accepted', async () => {
    const good = aMessageRequest({ delayMs: 3_600_000 });
    const hostile = aMessageRequest({ message: aTextMessage(bad) });
    const lines = await world.api.batch([good, hostile]);
    expect(lines[0]).toMatchObject({ line: 1, ok: true });
    expect(lines[1]).toMatchObject({ line: 2, ok: false });
    expect(JSON.stringify((lines[1] as ErrorBody).error)).toContain('content');
    expect(lines[2]).toEqual<BatchLine>({ summary: { lines: 2, accepted: 1, rejected: 1 } });
    expect((await world.api.follower(APP_ID, hostile.openid)).messages).toEqual([]);
  });

  it('PUT /v1/messages/:id with it in the new message: a 4xx naming the field; the original stays as it was', async () => {
    const original = await world.api.schedule(aMessageRequest({ delayMs: 3_600_000 }));
    const res = await world.api(`/v1/messages/${original.id}`, {
      method: 'PUT',
      json: { delayMs: 1000, message: aTextMessage(bad) },
    });
    expectRejected(res, 'content');
    expect((await world.api.message(original.id)).status).toBe('queued');
    expect((await world.api.follower(APP_ID, original.openid!)).messages).toHaveLength(1);
  });

  it('PUT /v1/messages/by-key/:appId/:cancelKey with it in the cancel key: a 4xx naming cancelKey, nothing cancelled', async () => {
    const res = await world.api(`/v1/messages/by-key/${APP_ID}/${urlPart(bad)}`, {
      method: 'PUT',
      json: { openid: anOpenid(), delayMs: 1000, message: aTextMessage() },
    });
    expectRejected(res, 'cancelKey');
  });

  it.each([
    ['GET /v1/messages/:id', 'id', (v: string): [string, Call] => [`/v1/messages/${v}`, {}]],
    [
      'DELETE /v1/messages/:id',
      'id',
      (v: string): [string, Call] => [`/v1/messages/${v}`, { method: 'DELETE' }],
    ],
    [
      'GET /v1/followers/:appId/:openid',
      'openid',
      (v: string): [string, Call] => [`/v1/followers/${APP_ID}/${v}`, {}],
    ],
    [
      'GET /v1/followers/:appId/:openid',
      'appId',
      (v: string): [string, Call] => [`/v1/followers/${v}/o-someone`, {}],
    ],
    ['GET /v1/sequences?appId=', 'appId', (v: string): [string, Call] => [`/v1/sequences?appId=${v}`, {}]],
    ['GET /v1/sequences/:id', 'id', (v: string): [string, Call] => [`/v1/sequences/${v}`, {}]],
  ])('%s with it in %s: a 4xx naming the parameter', async (_route, field, request) => {
    const [path, c] = request(urlPart(bad));
    expectRejected(await world.api(path, c), field);
  });

  it('DELETE /v1/messages/:id?reason= with it in the reason: a 4xx naming reason, the message stays open', async () => {
    const open = await world.api.schedule(aMessageRequest({ delayMs: 3_600_000 }));
    expectRejected(
      await world.api(`/v1/messages/${open.id}?reason=${urlPart(bad)}`, { method: 'DELETE' }),
      'reason',
    );
    expect((await world.api.message(open.id)).status).toBe('queued');
  });

  it.each(CANCELLATION_FIELDS)(
    'POST /v1/cancellations with it in %s: a 4xx naming the field, nothing cancelled',
    async (field) => {
      const cancelKey = aKey();
      const open = await world.api.schedule(aMessageRequest({ delayMs: 3_600_000, cancelKey }));
      const res = await world.api('/v1/cancellations', {
        json: at(field, bad, { appId: APP_ID, cancelKey, reason: 'hostile' }),
      });
      expectRejected(res, field);
      expect((await world.api.message(open.id)).status).toBe('queued');
    },
  );

  it.each(SEQUENCE_FIELDS)(
    'POST /v1/sequences with it in %s: a 4xx naming the field, nothing written',
    async (field) => {
      const before = (await world.api('/v1/sequences')).body.sequences.length;
      const sequence = aSequence({
        trigger: { type: 'keyword', keyword: '优惠' },
        steps: [aStep({ fallback: aTemplateMessage() })],
      });
      const res = await world.api('/v1/sequences', { json: at(field, bad, sequence) });
      expectRejected(res, field.split('.').pop()!);
      expect((await world.api('/v1/sequences')).body.sequences).toHaveLength(before);
    },
  );

  it('POST /v1/sequences/:id/test-send with it in openid: a 4xx naming openid', async () => {
    const created = await world.api('/v1/sequences', { json: aSequence({ status: 'draft' }) });
    const res = await world.api(`/v1/sequences/${created.body.id}/test-send`, {
      json: { openid: bad, stepIndex: 0 },
    });
    expectRejected(res, 'openid');
  });
});

describe('HTTP API: hostile input', () => {
  it('an impossible date (2027-02-31) gets a 400 naming sendAt and writes nothing', async () => {
    const request = aMessageRequest({ delayMs: undefined, sendAt: '2027-02-31T09:00:00+08:00' });
    expectRejected(await world.api('/v1/messages', { json: request }), 'sendAt', 400);
    expect((await world.api.follower(APP_ID, request.openid)).messages).toEqual([]);
  });

  it('a body over HTTP_BODY_LIMIT_BYTES (64 KiB) gets 413 JSON and writes nothing', async () => {
    const request = aMessageRequest({ message: aTextMessage('长'.repeat(70_000)) });
    const res = await world.api('/v1/messages', { json: request });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
    });
    expect((await world.api.follower(APP_ID, request.openid)).messages).toEqual([]);
  });

  it('an NDJSON line over 64 KiB is rejected on its own', async () => {
    const lines = await world.api.batch([
      aMessageRequest({ message: aTextMessage('x'.repeat(70_000)) }),
      aMessageRequest({ delayMs: 3_600_000 }),
    ]);
    expect(lines).toEqual([
      expect.objectContaining({ line: 1, ok: false }),
      expect.objectContaining({ line: 2, ok: true }),
      { summary: { lines: 2, accepted: 1, rejected: 1 } },
    ]);
  });
});

describe('Follow → drip: an authentic push is never lost', () => {
  it('a signed push whose text contains NUL is answered success, recorded and processed (its keyword starts the drip)', async () => {
    const res = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'keyword', keyword: '报名' },
        steps: [aStep({ message: aTextMessage('signed up') })],
      }),
    });
    expect(res.status).toBe(201);
    const openid = anOpenid();
    const push = await world.sim.message(openid, '我要\u0000报名');
    expect(push.pushes).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);
    await untilReceived(world.sim, openid, 'signed up');
    const timeline = await world.api.follower(APP_ID, openid);
    expect(timeline.interactions).toHaveLength(1);
  });

  it('a signed push laid out with whitespace between its tags and CDATA (`<FromUserName>\\n <![CDATA[o1]]>\\n`) reaches its follower, as WeChat’s SDKs read it', async () => {
    const res = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'keyword', keyword: '缩进' },
        steps: [aStep({ message: aTextMessage('read through the whitespace') })],
      }),
    });
    expect(res.status).toBe(201);
    const openid = anOpenid();
    const push = await world.sim.message(openid, '缩进', { layout: 'indented' });
    expect(push.wire.body).toMatch(/<Encrypt>\n +<!\[CDATA\[/);
    expect(push.pushes).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);
    await untilReceived(world.sim, openid, 'read through the whitespace');
    expect((await world.api.follower(APP_ID, openid)).interactions).toHaveLength(1);
  });
});
