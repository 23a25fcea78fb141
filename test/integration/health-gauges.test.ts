/**
 * The gauges the alert rules (docker/alerts.yml) read at scrape time: whether a process reaches Postgres
 * and RabbitMQ, and which accounts are paused. Outages are made by cutting a proxy in front of the shared
 * services, never by stopping them.
 */
import { liftPause, pauseAccount } from '../../src/store/account-states';
import { withTransaction } from '../../src/db/pool';
import { TEST_RABBITMQ_URL } from '../helpers/broker';
import { TEST_DATABASE_URL } from '../helpers/db';
import { APP_ID, createHarness, freePort, type Harness, waitFor } from '../helpers/harness';
import { createStallableProxy } from '../helpers/proxies';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

async function scrape(opsUrl: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${opsUrl}/metrics`);
  return { status: res.status, text: await res.text() };
}

/** The value of one series (name and labels as printed), or undefined when it is not in the text. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** `url` with its host and port replaced by a proxy's on the loopback. */
function through(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

describe('health gauges on /metrics', () => {
  it('read 1 while Postgres and RabbitMQ answer, 0 once each is cut off, and /metrics keeps answering', async () => {
    const pg = new URL(TEST_DATABASE_URL);
    const amqp = new URL(TEST_RABBITMQ_URL);
    const pgProxy = await createStallableProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
    const brokerProxy = await createStallableProxy({ host: amqp.hostname, port: Number(amqp.port || 5672) });
    const service = await h.start({
      ROLE: 'api',
      DATABASE_URL: through(TEST_DATABASE_URL, pgProxy.port),
      RABBITMQ_URL: through(TEST_RABBITMQ_URL, brokerProxy.port),
    });
    const before = await scrape(service.opsUrl);
    expect(valueOf(before.text, 'wechat_drip_postgres_up')).toBe(1);
    expect(valueOf(before.text, 'wechat_drip_broker_connected')).toBe(1);

    await pgProxy.close();
    await brokerProxy.close();
    let after = before;
    const cut = await waitFor(async () => {
      after = await scrape(service.opsUrl);
      return (
        valueOf(after.text, 'wechat_drip_postgres_up') === 0 &&
        valueOf(after.text, 'wechat_drip_broker_connected') === 0
      );
    }, 10_000);
    expect(cut).toBe(true);
    // A failed read from Postgres does not fail the scrape (Prometheus would count the process down):
    // the gauges read from Postgres keep their last value.
    expect(after.status).toBe(200);
    expect(valueOf(after.text, 'wechat_drip_outbox_backlog_messages')).toBe(
      valueOf(before.text, 'wechat_drip_outbox_backlog_messages'),
    );
  });

  it('read Postgres as down within seconds when it accepts connections but does not answer', async () => {
    const pg = new URL(TEST_DATABASE_URL);
    const pgProxy = await createStallableProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
    const service = await h.start({
      ROLE: 'api',
      HTTP_PORT: String(await freePort()),
      DATABASE_URL: through(TEST_DATABASE_URL, pgProxy.port),
    });
    expect(valueOf((await scrape(service.opsUrl)).text, 'wechat_drip_postgres_up')).toBe(1);

    pgProxy.stall();
    const startedAt = Date.now();
    const stalled = await scrape(service.opsUrl);
    // Under Prometheus's 10 s scrape timeout: the process is not counted down with its Postgres.
    expect(Date.now() - startedAt).toBeLessThan(8000);
    expect(stalled.status).toBe(200);
    expect(valueOf(stalled.text, 'wechat_drip_postgres_up')).toBe(0);
    await pgProxy.close();
  });

  it('list each paused account with its reason, and drop it once the pause is lifted', async () => {
    const service = await h.start({ ROLE: 'api', HTTP_PORT: String(await freePort()) });
    const series = `wechat_drip_account_paused{app_id="${APP_ID}",reason="errcode:45009"}`;
    expect(valueOf((await scrape(service.opsUrl)).text, series)).toBeUndefined();

    await pauseAccount(h.db.pool, APP_ID, new Date(Date.now() + 3_600_000), 'errcode:45009');
    expect(valueOf((await scrape(service.opsUrl)).text, series)).toBe(1);

    await withTransaction(h.db.pool, (client) => liftPause(client, APP_ID));
    const text = (await scrape(service.opsUrl)).text;
    expect(valueOf(text, series)).toBeUndefined();
    expect(text).toContain('# TYPE wechat_drip_account_paused gauge');
  });
});
