import { anOpenid, aMessageRequest, aTextMessage } from './support/builders';
import { untilReceived, untilStatus } from './support/expectations';
import { call } from './support/http';
import { waitFor } from './support/wait-for';
import { startWorld, type World } from './support/world';

// docs/operations.md "Operating it" → Retention: finished messages are deleted RETENTION_FINISHED_AFTER after they
// finished (1 s here), a partition (MESSAGE_PARTITION, 1 s here instead of a day) at a time, open ones never;
// what was deleted is counted in the worker's metrics.
let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'retention',
    split: true,
    env: {
      RETENTION_FINISHED_AFTER: '1s',
      RETENTION_INTERVAL: '200ms',
      MESSAGE_PARTITION: '1s',
      PUBLISH_HORIZON: '5s',
    },
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** The worker's count of rows it pruned from `table` (its /metrics). */
async function prunedFrom(table: string): Promise<number> {
  const { text } = await call(`${world.workerUrl}/metrics`);
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`wechat_drip_retention_pruned_total{table="${table}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

const untilGone = (id: string) =>
  waitFor(async () => (await world.api(`/v1/messages/${id}`)).status === 404, `message ${id} to answer 404`);

describe('Operating it: retention', () => {
  it('a finished message disappears after the age while an open one stays, and is still sent once', async () => {
    const openid = anOpenid('retention');
    const finished = await world.api.schedule(
      aMessageRequest({ openid, message: aTextMessage('now'), idempotencyKey: `retention-${openid}` }),
    );
    const open = await world.api.schedule(
      aMessageRequest({ openid, delayMs: 4000, message: aTextMessage('later') }),
    );
    await untilStatus(world.api, finished.id, 'sent');

    await untilGone(finished.id);

    expect((await world.api.message(open.id)).status).toBe('queued');
    // Counted as each partition goes (a scrape may come between the drop and the count).
    await waitFor(async () => (await prunedFrom('scheduled_messages')) >= 1, 'the pruned messages counted');
    await waitFor(async () => (await prunedFrom('delivery_attempts')) >= 1, 'the pruned attempts counted');
    // Its idempotency key went with it: the same request again is a new message.
    const again = await world.api('/v1/messages', {
      json: aMessageRequest({
        openid,
        delayMs: 4000,
        message: aTextMessage('now'),
        idempotencyKey: `retention-${openid}`,
      }),
    });
    expect(again.status).toBe(201);

    await untilReceived(world.sim, openid, 'later');
    await untilGone(open.id);
    const texts = await waitFor(async () => {
      const received = await world.sim.texts(openid);
      return received.length >= 3 && received;
    }, 'the repeated request to be sent too');
    expect([...texts].sort()).toEqual(['later', 'now', 'now']);
    const { text } = await call(`${world.workerUrl}/metrics`);
    expect(text).toMatch(/^wechat_drip_retention_last_run_timestamp_seconds \d+/m);
  });
});
