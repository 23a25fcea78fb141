import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chooseTransport } from '../broker/choose-transport';
import { createBrokerConnection } from '../broker/connection';
import { createDueConsumer, type DueConsumer } from '../broker/consumer';
import { createPublisher, type Publisher } from '../broker/publisher';
import { brokerNames } from '../broker/topology';
import type { DelayTransport } from '../broker/transports/transport';
import type { Config } from '../config';
import { isMigrated } from '../db/migrate';
import { createPool, type Pool } from '../db/pool';
import { createApp, type Readiness } from '../http/create-app';
import type { Logger } from '../logger';
import { createDbGate } from '../scheduling/db-gate';
import { createDeliverDue } from '../scheduling/deliver-due';
import { createRelay, type Relay } from '../scheduling/relay';
import { createWechatClient } from '../wechat/client';
import { createAccountRateLimiters } from '../wechat/rate-limit';
import { createTokenStore } from '../wechat/tokens';
import { processPush, processStalePushes } from '../webhook/process-push';

/** How long start-up waits for the broker topology before serving anyway (schedules then stay pending). */
const PUBLISHER_READY_WAIT_MS = 10_000;
/** A push recorded but unprocessed this long (its api process died after answering) is processed by a worker. */
const STALE_PUSH_AFTER_MS = 10_000;

export interface Service {
  /** Base URL of the HTTP API when this process runs it. */
  readonly url: string | null;
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly transport: DelayTransport;
  readonly relay: Relay | null;
  readonly consumer: DueConsumer | null;
  readiness(): Promise<Readiness>;
  /** Stops taking work, finishes what is in hand, closes every connection. */
  stop(): Promise<void>;
}

/**
 * Builds and starts the roles the config asks for, with every dependency passed down explicitly. Used by
 * the composition roots and by integration tests (which give a schema of their own via `searchPath`).
 */
export async function startService(
  config: Config,
  logger: Logger,
  opts: { searchPath?: string } = {},
): Promise<Service> {
  const runsApi = config.role !== 'worker';
  const runsWorker = config.role !== 'api';
  const pool = createPool({
    connectionString: config.databaseUrl,
    max: config.databasePoolSize,
    logger,
    searchPath: opts.searchPath,
    applicationName: `wechat-drip ${config.role}`,
  });
  const levels = { unitMs: config.levelsUnitMs, count: config.levelsCount };
  const names = brokerNames(config.brokerPrefix, levels);
  const { transport, reason } = await chooseTransport(config, names, logger);
  logger.info(
    { transport: transport.mode, reason, maxDelayMs: transport.maxDelayMs },
    'delay transport chosen',
  );

  const connection = createBrokerConnection(config.rabbitmqUrl, logger, `wechat-drip ${config.role}`);
  const publisher = createPublisher({
    connection,
    names,
    transport,
    levels,
    publishTimeoutMs: config.publishTimeoutMs,
    logger,
  });
  if (!(await publisher.waitUntilReady(PUBLISHER_READY_WAIT_MS))) {
    logger.warn('rabbitmq not reachable yet; accepting schedules, the relay publishes them once it is');
  }
  const background = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    background.add(work);
    void work.finally(() => background.delete(work));
  };

  async function readiness(): Promise<Readiness> {
    const checks: Readiness['checks'] = {};
    try {
      checks.postgres = { ok: true };
      checks.migrations = (await isMigrated(pool))
        ? { ok: true }
        : { ok: false, detail: 'migrations pending' };
    } catch (err) {
      checks.postgres = { ok: false, detail: (err as Error).message };
    }
    checks.rabbitmq = connection.isConnected() ? { ok: true } : { ok: false, detail: 'not connected' };
    checks.transport = { ok: true, detail: `${transport.mode} (${reason})` };
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  }

  let server: Server | null = null;
  let url: string | null = null;
  if (runsApi) {
    const processPushLater = (pushId: number) =>
      track(
        processPush({ config, pool, publisher, logger }, pushId).catch((err: Error) =>
          logger.error({ pushId, err: err.message }, 'push processing failed; the worker retries it'),
        ),
      );
    const app = createApp({ config, pool, publisher, logger, track, readiness, processPushLater });
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.httpPort, config.httpHost, () => resolve(s));
      s.once('error', reject);
    });
    const address = server.address() as AddressInfo;
    url = `http://${config.httpHost}:${address.port}`;
    logger.info({ url }, 'api listening');
  }

  let consumer: DueConsumer | null = null;
  let relay: Relay | null = null;
  let closeWechat: (() => Promise<void>) | null = null;
  let closeGate: (() => void) | null = null;
  if (runsWorker) {
    const tokens = createTokenStore({
      pool,
      baseUrl: config.wechatApiBaseUrl,
      accounts: config.wechatAccounts,
      refreshMarginMs: config.tokenRefreshMarginMs,
      timeoutMs: config.wechatTimeoutMs,
      logger,
    });
    const wechat = createWechatClient({
      baseUrl: config.wechatApiBaseUrl,
      timeoutMs: config.wechatTimeoutMs,
      maxConnections: config.wechatMaxConnections,
      tokens,
      logger,
    });
    closeWechat = () => wechat.close();
    const limiterFor = createAccountRateLimiters(config.wechatAccounts);
    const gate = createDbGate({
      onDown: () => void consumer?.pause(),
      onUp: () => void consumer?.resume(),
      logger,
    });
    closeGate = () => gate.close();
    const deliverDue = createDeliverDue({
      pool,
      publisher,
      sender: wechat,
      acquireSendSlot: (appId) => limiterFor(appId).acquire(),
      gate,
      policy: {
        maxAttempts: config.retryMaxAttempts,
        baseDelayMs: config.retryBaseDelayMs,
        maxDelayMs: config.retryMaxDelayMs,
      },
      earlyToleranceMs: config.earlyToleranceMs,
      uncheckedAppIds: config.wechatAccounts.filter((a) => a.windowPolicy === null).map((a) => a.appId),
      logger,
    });
    consumer = createDueConsumer({
      connection,
      names,
      prefetch: config.workerPrefetch,
      batchSize: config.workerBatchSize,
      batchWaitMs: config.workerBatchWaitMs,
      maxConcurrentBatches: config.workerConcurrentBatches,
      onBatch: deliverDue,
      logger,
    });
    relay = createRelay({
      pool,
      publisher,
      logger,
      options: {
        intervalMs: config.relayIntervalMs,
        pendingAfterMs: config.relayPendingAfterMs,
        overdueAfterMs: config.relayOverdueAfterMs,
        batchSize: config.relayBatchSize,
        sendingTimeoutMs: config.sendingTimeoutMs,
        atLeastOnceAppIds: config.wechatAccounts.filter((a) => a.atLeastOnce).map((a) => a.appId),
      },
      alsoRun: () =>
        processStalePushes({ config, pool, publisher, logger }, STALE_PUSH_AFTER_MS, config.relayBatchSize),
    });
    relay.start();
    void consumer
      .start()
      .catch((err: Error) => logger.error({ err: err.message }, 'consumer failed to start'));
    logger.info({ prefetch: config.workerPrefetch, batchSize: config.workerBatchSize }, 'worker consuming');
  }

  return {
    url,
    pool,
    publisher,
    transport,
    relay,
    consumer,
    readiness,
    async stop() {
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      await relay?.stop();
      closeGate?.();
      await consumer?.stop();
      await Promise.allSettled([...background]);
      await publisher.close();
      await connection.close();
      await closeWechat?.();
      await pool.end();
    },
  };
}
