import { Gauge, type Registry } from 'prom-client';
import type { Pool } from './db/pool';
import { listAccountPauses } from './store/account-states';
import { pingPostgres } from './store/postgres-ping';

/** Under Prometheus's default scrape timeout (10 s), so that a hung Postgres reads as 0, not as a failed scrape. */
const POSTGRES_PING_TIMEOUT_MS = 3000;

/**
 * The result of a read from Postgres at scrape time, or null when it failed. A failed read must not fail
 * the scrape: Prometheus would record the whole process as down (`up` 0) when only Postgres is, and the
 * alert rules (docker/alerts.yml) tell the two apart. `wechat_drip_postgres_up` says why a value is stale.
 */
export async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
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
      this.set((await pingPostgres(opts.pool, POSTGRES_PING_TIMEOUT_MS)) ? 1 : 0);
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
      const pauses = await readOrNull(() => listAccountPauses(opts.pool));
      if (pauses === null) return;
      this.reset();
      for (const p of pauses) this.set({ app_id: p.appId, reason: p.reason }, 1);
    },
  });
}
