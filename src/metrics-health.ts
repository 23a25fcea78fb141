import { Gauge, type Registry } from 'prom-client';
import type { Pool } from './db/pool';
import { listAccountPauses } from './store/account-states';
import { pingPostgres } from './store/postgres-ping';

/**
 * How long a read from Postgres at scrape time may take: under Prometheus's default scrape timeout (10 s),
 * so that a Postgres that accepts connections but does not answer makes a slow scrape, not a failed one.
 */
const SCRAPE_READ_TIMEOUT_MS = 3000;

/**
 * The result of a read from Postgres at scrape time, or null when it failed or took longer than
 * SCRAPE_READ_TIMEOUT_MS. A failed read must not fail the scrape: Prometheus would record the whole
 * process as down (`up` 0) when only Postgres is, and the alert rules (docker/alerts.yml) tell the two
 * apart. `wechat_drip_postgres_up` says why a value is stale.
 */
export async function readAtScrape<T>(read: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), SCRAPE_READ_TIMEOUT_MS);
  });
  try {
    return await Promise.race([read().catch(() => null), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The gauges the alert rules need beyond the counters: whether this process reaches Postgres and
 * RabbitMQ, and which accounts are paused now. All are read at scrape time, so they say how things are,
 * whichever process changed them.
 */
export function registerHealthGauges(
  registry: Registry,
  opts: { pool: Pool; isBrokerConnected?: () => boolean },
): void {
  new Gauge({
    name: 'wechat_drip_postgres_up',
    help: 'Whether Postgres answered this process at this scrape (1) or not (0).',
    registers: [registry],
    async collect() {
      this.set((await readAtScrape(async () => pingPostgres(opts.pool).then(() => true))) ? 1 : 0);
    },
  });
  const isBrokerConnected = opts.isBrokerConnected;
  if (isBrokerConnected) {
    new Gauge({
      name: 'wechat_drip_broker_connected',
      help: 'Whether this process holds its connection to RabbitMQ (1) or is reconnecting (0).',
      registers: [registry],
      collect() {
        this.set(isBrokerConnected() ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: 'wechat_drip_account_paused',
    help:
      'Accounts whose sending is paused now (1 each), by reason: errcode:45009 (daily quota) or the ' +
      'code of credentials WeChat refused (token_error).',
    labelNames: ['app_id', 'reason'],
    registers: [registry],
    async collect() {
      const pauses = await readAtScrape(() => listAccountPauses(opts.pool));
      if (pauses === null) return;
      this.reset();
      for (const p of pauses) this.set({ app_id: p.appId, reason: p.reason }, 1);
    },
  });
}
