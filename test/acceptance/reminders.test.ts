import { aKey, aMessageRequest, anOpenid, aTemplateMessage, aTextMessage } from './support/builders';
import { untilReceived, untilStatus } from './support/expectations';
import type { MessageView } from './support/types';
import { sleep } from './support/wait-for';
import { APP_ID, startWorld, type World } from './support/world';

// The api and the worker as two processes (ROLE=api, ROLE=worker), so a test can stop the worker.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'reminders', split: true });
}, 60_000);
afterAll(() => world?.close(), 30_000);

describe('Reminders for other systems', () => {
  it('PUT /v1/messages/:id moves a reminder: the old one is cancelled, only the replacement arrives, at the new time', async () => {
    const original = await world.api.schedule(
      aMessageRequest({ delayMs: 600, message: aTextMessage('at 10:00') }),
    );
    const movedAt = Date.now();
    const res = await world.api(`/v1/messages/${original.id}`, {
      method: 'PUT',
      json: { delayMs: 1500, message: aTextMessage('at 10:30') },
    });
    expect(res.status).toBe(201);
    const replacement = res.body as MessageView;
    expect(replacement).toMatchObject({ replaces: original.id, openid: original.openid });

    await untilReceived(world.sim, original.openid!, 'at 10:30');
    const received = await world.sim.messages(original.openid!);
    expect(received.map((m) => m.body.text.content)).toEqual(['at 10:30']);
    expect(received[0].receivedAt - movedAt).toBeGreaterThanOrEqual(1500);
    expect((await world.api.message(original.id)).status).toBe('cancelled');
  });

  it('PUT /v1/messages/by-key/:appId/:cancelKey cancels every open message with the key and schedules the replacement', async () => {
    const openid = anOpenid();
    const cancelKey = aKey('meeting');
    const old = await Promise.all(
      [500, 700].map((delayMs) => world.api.schedule(aMessageRequest({ openid, cancelKey, delayMs }))),
    );
    const movedAt = Date.now();
    const res = await world.api(`/v1/messages/by-key/${APP_ID}/${cancelKey}`, {
      method: 'PUT',
      json: { openid, delayMs: 1500, message: aTextMessage('moved meeting') },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ cancelled: 2, cancelKey });

    await untilReceived(world.sim, openid, 'moved meeting');
    const received = await world.sim.messages(openid);
    expect(received.map((m) => m.body.text.content)).toEqual(['moved meeting']);
    expect(received[0].receivedAt - movedAt).toBeGreaterThanOrEqual(1500);
    for (const m of old) expect((await world.api.message(m.id)).status).toBe('cancelled');
  });

  it('maxLatenessMs: a reminder that would go out later than that after its due time is skipped as stale', async () => {
    await world.stopWorker();
    const late = await world.api.schedule(aMessageRequest({ delayMs: 200, maxLatenessMs: 1000 }));
    const onTime = await world.api.schedule(aMessageRequest({ delayMs: 200, maxLatenessMs: 60_000 }));
    // The outage: no worker until the first reminder is more than its maxLatenessMs late.
    await sleep(1700);
    await world.startWorker();

    const skipped = await untilStatus(world.api, late.id, 'skipped');
    expect(skipped.statusReason).toBe('stale');
    await untilStatus(world.api, onTime.id, 'sent');
    expect(await world.sim.messages(late.openid!)).toEqual([]);
  });

  it('channel "template" sends a template message', async () => {
    const created = await world.api.schedule(
      aMessageRequest({ channel: 'template', message: aTemplateMessage('course at 19:00') }),
    );
    await untilStatus(world.api, created.id, 'sent');
    expect(await world.sim.messages(created.openid!)).toEqual([
      expect.objectContaining({
        channel: 'template',
        body: expect.objectContaining({
          touser: created.openid,
          template_id: aTemplateMessage().template_id,
          data: aTemplateMessage('course at 19:00').data,
        }),
      }),
    ]);
  });
});
