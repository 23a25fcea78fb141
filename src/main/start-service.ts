import type { JourneyTimeouts } from '../sequences/journey-timeouts';
import { importBootstrapAccounts } from '../accounts/bootstrap';
import { assertSealedValuesOpen } from '../accounts/check-sealed';
import type { ConnectDeps } from '../accounts/connect-account';
import { exchangePushedCode } from '../accounts/exchange-pushed-code';
import { createServiceTokens } from '../accounts/service-tokens';
import { type AccountRegistry, startAccountRegistry } from '../accounts/registry';
import { startKeyRegistry } from '../access/key-registry';
import { createSecretBox, type SecretBox } from '../accounts/secret-box';
import { chooseTransport } from '../broker/choose-transport';
import { createBrokerConnection } from '../broker/connection';
import type { DueConsumer } from '../worker/consumer';
import { createPublisher, type Publisher } from '../broker/publisher';
import type { DelayTransport } from '../broker/transports/transport';
import type { Config } from '../config';
import { isMigrated } from '../db/migrate';
import { createPool, type Pool } from '../db/pool';
import { createApp } from '../http/create-app';
import { createTemplateLibrary } from '../wechat/template-library';
import { createQrCodeMaker } from '../wechat/qrcodes';
import { createMediaUploader } from '../wechat/media';
import { createOpsApp } from '../http/create-ops-app';
import type { Readiness } from '../http/health-routes';
import { listen, type Listening } from '../http/listen';
import type { Logger } from '../logger';
import { createMetrics, type Metrics } from '../metrics';
import type { Relay } from '../scheduling/relay';
import type { HorizonPump } from '../scheduling/horizon-pump';
import { createScheduleWriter } from '../scheduling/schedule-writer';
import { createPushProcessor } from '../webhook/push-processor';
import { startWorker } from './start-worker';
import { loggableError } from '../loggable-error';
import { createPartitionKeeper } from '../scheduling/partition-keeper';

/** How long start-up waits for the broker topology before serving anyway (schedules then wait in the outbox). */
const PUBLISHER_READY_WAIT_MS = 10_000;
/** Most rows that concurrent schedule requests share one INSERT with (an NDJSON chunk is 500). */
const WRITER_MAX_ROWS = 1000;

export interface Service {
  /** Base URL of the public HTTP server (API, webhook, admin page) when this process runs it. */
  readonly url: string | null;
  /** Base URL of the ops listener (/healthz, detailed /readyz, /metrics), which every role has. */
  readonly opsUrl: string;
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly transport: DelayTransport;
  readonly relay: Relay | null;
  /** The worker's horizon pump; null in an api process. */
  readonly pump: HorizonPump | null;
  /** The worker's journey timeouts; null in an api process. */
  readonly timeouts: JourneyTimeouts | null;
  readonly consumer: DueConsumer | null;
  readonly metrics: Metrics;
  readonly accounts: AccountRegistry;
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
  const box = createSecretBox(config.accountsEncryptionKey, config.accountsPreviousEncryptionKeys);
  let accounts: AccountRegistry;
  try {
    accounts = await openAccounts(config, logger, pool, box, opts.searchPath);
  } catch (err) {
    await pool.end();
    throw err;
  }
  // The api's: the API keys its guard accepts beside the admin token.
  const keys = runsApi
    ? await startKeyRegistry({
        pool,
        logger,
        connectionString: config.databaseUrl,
        searchPath: opts.searchPath,
        refreshMs: config.accountsRefreshMs,
      })
    : null;
  const { transport, names, reason } = await chooseTransport(config, logger);
  logger.info(
    { transport: transport.mode, reason, maxDelayMs: transport.maxDelayMs },
    'delay transport chosen',
  );

  const connection = createBrokerConnection(config.rabbitmqUrls, logger, `wechat-drip ${config.role}`);
  const metrics = createMetrics({
    pool,
    transportMode: transport.mode,
    isBrokerConnected: () => connection.isConnected(),
    outboxOwedAfterMs: config.relayPendingAfterMs,
    publishHorizonMs: config.publishHorizonMs,
  });
  const publisher = createPublisher({
    connection,
    names,
    transport,
    publishTimeoutMs: config.publishTimeoutMs,
    horizonMs: config.publishHorizonMs,
    logger,
    metrics,
  });
  if (!(await publisher.waitUntilReady(PUBLISHER_READY_WAIT_MS))) {
    logger.warn('rabbitmq not reachable yet; accepting schedules, the relay publishes them once it is');
  }
  // Before any work: the partitions new rows go to exist (the keeper keeps them ahead from here on). With
  // Postgres unreachable the process starts all the same (not ready), and the keeper's passes try again.
  const keeper = createPartitionKeeper({
    pool,
    logger,
    options: { partitionMs: config.messagePartitionMs, horizonMs: config.publishHorizonMs },
  });
  await keeper
    .runOnce()
    .catch((err: unknown) =>
      logger.warn({ err: loggableError(err) }, 'message partitions not checked yet; the keeper tries again'),
    );
  keeper.start();
  const background = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    background.add(work);
    void work.finally(() => background.delete(work));
  };
  /** Aborted on stop: background work waiting to retry gives up rather than hold the stop. */
  const stopping = new AbortController();

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
    checks.accounts = accounts.isLoaded() ? { ok: true } : { ok: false, detail: 'not read yet' };
    if (keys) checks.apiKeys = keys.isLoaded() ? { ok: true } : { ok: false, detail: 'not read yet' };
    checks.transport = { ok: true, detail: `${transport.mode} (${reason})` };
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  }

  let ops: Listening | null = null;
  let publicServer: Listening | null = null;
  try {
    // First, so that health, readiness and metrics answer while the rest starts.
    ops = await listen(createOpsApp({ readiness, metrics, logger }), config.opsHost, config.opsPort, config);
    logger.info({ url: ops.url }, 'ops listener (healthz, readyz, metrics) listening');
    if (keys) {
      const processPush = createPushProcessor({ accounts, pool, publisher, logger, metrics });
      const processPushLater = (pushId: number) =>
        track(
          processPush(pushId).catch((err: Error) =>
            logger.error(
              { pushId, err: loggableError(err) },
              'push processing failed; the worker retries it',
            ),
          ),
        );
      // Up to half the pool inserts schedules at once; more concurrent requests share statements.
      const writer = createScheduleWriter(
        { pool, publisher, logger },
        { concurrency: Math.max(1, Math.floor(config.databasePoolSize / 2)), maxRows: WRITER_MAX_ROWS },
      );
      const connect = connectDeps(config, { pool, box, logger, metrics, accounts });
      const { tokens } = createServiceTokens({ config, pool, box, logger, accounts });
      const wechat = { baseUrl: config.wechatApiBaseUrl, timeoutMs: config.wechatTimeoutMs, tokens };
      const templates = createTemplateLibrary({ ...wechat, ttlMs: config.templateListTtlMs, logger });
      const app = createApp({
        templates,
        qrcodes: createQrCodeMaker(wechat),
        media: createMediaUploader(wechat),
        connect,
        exchangeCodeLater: (push) => {
          if (connect) track(exchangePushedCode(connect, push, stopping.signal));
        },
        config,
        accounts,
        keys,
        box,
        pool,
        publisher,
        logger,
        track,
        readiness,
        processPushLater,
        metrics,
        writer,
      });
      publicServer = await listen(app, config.httpHost, config.httpPort, config);
      logger.info({ url: publicServer.url }, 'api listening');
    }
  } catch (err) {
    // A port taken (EADDRINUSE names it): release what is open, so that the caller can report and exit.
    await ops?.close();
    await keeper.stop();
    await publisher.close();
    await connection.close();
    await keys?.stop();
    await accounts.stop();
    await pool.end();
    throw err;
  }
  const opsListener = ops;

  const worker = runsWorker
    ? startWorker({ config, logger, pool, connection, names, publisher, metrics, accounts, box })
    : null;

  return {
    url: publicServer?.url ?? null,
    opsUrl: opsListener.url,
    pool,
    publisher,
    transport,
    relay: worker?.relay ?? null,
    pump: worker?.pump ?? null,
    timeouts: worker?.timeouts ?? null,
    consumer: worker?.consumer ?? null,
    metrics,
    accounts,
    readiness,
    async stop() {
      stopping.abort();
      await publicServer?.close();
      await worker?.stop();
      await keeper.stop();
      await Promise.allSettled([...background]);
      await publisher.close();
      await connection.close();
      await keys?.stop();
      await accounts.stop();
      await pool.end();
      // Last: health and metrics stay answerable while the rest drains.
      await opsListener.close();
    },
  };
}

/** What connecting accounts through the platform needs in the api, or null without a platform. */
function connectDeps(
  config: Config,
  deps: { pool: Pool; box: SecretBox; logger: Logger; metrics: Metrics; accounts: AccountRegistry },
): ConnectDeps | null {
  if (!config.platform) return null;
  const { tokens, platform } = createServiceTokens({ config, ...deps });
  return {
    ...deps,
    platform: config.platform,
    tokens,
    componentKey: platform!.componentKey,
    api: { baseUrl: config.wechatApiBaseUrl, timeoutMs: config.wechatTimeoutMs },
    loginPageUrl: config.platform.loginPageUrl,
  };
}

/**
 * Checks that every stored sealed value opens with the configured keys, then imports WECHAT_ACCOUNTS
 * (absent accounts only), then loads the registry. A value that does not open (no key, a wrong key, a
 * key rotated away) stops the start here, before anything is written, with an error naming its kind, app
 * id and key id, never the value; with Postgres unreachable the process starts unready and does all three
 * once it can (staying unready, the error logged, while a value does not open).
 */
async function openAccounts(
  config: Config,
  logger: Logger,
  pool: Pool,
  box: SecretBox,
  searchPath: string | undefined,
): Promise<AccountRegistry> {
  return startAccountRegistry({
    prepare: async () => {
      await assertSealedValuesOpen(pool, box);
      await importBootstrapAccounts({ pool, box, logger }, config.bootstrapAccounts);
    },
    pool,
    box,
    logger,
    connectionString: config.databaseUrl,
    searchPath,
    refreshMs: config.accountsRefreshMs,
  });
}
