import { appIdsWhere, derivedFrom } from '../accounts/derived';
import type { AccountRegistry } from '../accounts/registry';
import type { AmqpConnectionManager } from '../broker/connection';
import { createDueConsumer, type DueConsumer } from '../worker/consumer';
import type { Publisher } from '../broker/publisher';
import type { BrokerNames } from '../broker/topology';
import type { Config } from '../config';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { createDbGate } from '../worker/db-gate';
import { createDeliverDue } from '../worker/deliver-due';
import { createDeliveryStore } from '../worker/delivery-store';
import { createRelay, type Relay } from '../scheduling/relay';
import { createPaceSends } from '../worker/pace-sends';
import { createSendSlots } from '../worker/send-slots';
import { createWechatClient } from '../wechat/client';
import { createJudgedSender } from '../wechat/judged-sender';
import { createServiceTokens } from '../accounts/service-tokens';
import type { SecretBox } from '../accounts/secret-box';
import { processStalePushes, STALE_PUSH_AFTER_MS } from '../webhook/process-push';
import { RETENTION_SKEW_WINDOWS } from '../webhook/url-uses';
import { createPruner, type Pruner } from '../retention/pruner';
import { createHorizonPump, type HorizonPump } from '../scheduling/horizon-pump';
import { createJourneyTimeouts, type JourneyTimeouts } from '../sequences/journey-timeouts';
import { loggableError } from '../loggable-error';

export interface Worker {
  readonly consumer: DueConsumer;
  readonly relay: Relay;
  readonly pump: HorizonPump;
  /** Takes journeys' no paths as their waits time out. */
  readonly timeouts: JourneyTimeouts;
  /** The retention pruner; null when RETENTION_FINISHED_AFTER is off. */
  readonly pruner: Pruner | null;
  /** Stops the relay and the consumer (finishing the batches in hand), then closes the WeChat client. */
  stop(): Promise<void>;
}

/** The worker role: the relay and the due-queue consumer with everything they need. */
export function startWorker(deps: {
  config: Config;
  logger: Logger;
  pool: Pool;
  connection: AmqpConnectionManager;
  names: BrokerNames;
  publisher: Publisher;
  metrics: Metrics;
  accounts: AccountRegistry;
  /** Opens the platform's sealed credentials (ticket, refresh tokens). */
  box: SecretBox;
}): Worker {
  const { config, logger, pool, publisher, metrics, accounts, box } = deps;
  const { tokens } = createServiceTokens({
    config,
    pool,
    box,
    logger,
    accounts,
    onRefresh: (appId, outcome) => metrics.tokenRefreshes.inc({ app_id: appId, outcome }),
  });
  const wechat = createWechatClient({
    baseUrl: config.wechatApiBaseUrl,
    timeoutMs: config.wechatTimeoutMs,
    maxConnections: config.wechatMaxConnections,
    tokens,
    logger,
  });
  // Everything derived from the accounts follows their changes: read through the registry at each use.
  const atLeastOnce = derivedFrom(
    accounts,
    appIdsWhere((a) => a.atLeastOnce),
  );
  const unchecked = derivedFrom(
    accounts,
    appIdsWhere((a) => a.windowPolicy === null),
  );
  let consumer: DueConsumer | null = null;
  const gate = createDbGate({
    onDown: () => void consumer?.pause(),
    onUp: () => void consumer?.resume(),
    logger,
  });
  const store = createDeliveryStore(pool);
  const deliverDue = createDeliverDue({
    store,
    publisher,
    sender: createJudgedSender(wechat, logger),
    paceSends: createPaceSends({ reserve: store.reserveSends, accounts }),
    gate,
    policy: {
      maxAttempts: config.retryMaxAttempts,
      baseDelayMs: config.retryBaseDelayMs,
      maxDelayMs: config.retryMaxDelayMs,
      get atLeastOnceAppIds() {
        return atLeastOnce();
      },
    },
    earlyToleranceMs: config.earlyToleranceMs,
    batchSize: config.workerBatchSize,
    slots: createSendSlots(config.workerSendConcurrency),
    get uncheckedAppIds() {
      return unchecked();
    },
    metrics,
    logger,
  });
  consumer = createDueConsumer({
    connection: deps.connection,
    names: deps.names,
    prefetch: config.workerPrefetch,
    batchSize: config.workerBatchSize,
    batchWaitMs: config.workerBatchWaitMs,
    maxHoldMs: publisher.transport.earlyMs,
    maxConcurrentBatches: config.workerConcurrentBatches,
    onBatch: deliverDue,
    logger,
  });
  const relay = createRelay({
    pool,
    publisher,
    logger,
    options: {
      intervalMs: config.relayIntervalMs,
      pendingAfterMs: config.relayPendingAfterMs,
      overdueAfterMs: config.relayOverdueAfterMs,
      batchSize: config.relayBatchSize,
      sendingTimeoutMs: config.sendingTimeoutMs,
      get atLeastOnceAppIds() {
        return atLeastOnce();
      },
    },
    alsoRun: () =>
      processStalePushes(
        { accounts, pool, publisher, logger, metrics },
        STALE_PUSH_AFTER_MS,
        config.relayBatchSize,
      ),
  });
  relay.start();
  const pump = createHorizonPump({
    pool,
    publisher,
    logger,
    options: {
      intervalMs: config.relayIntervalMs,
      batchSize: config.horizonPumpBatchSize,
      partitionMs: config.messagePartitionMs,
    },
  });
  pump.start();
  const timeouts = createJourneyTimeouts({
    pool,
    publisher,
    logger,
    metrics,
    options: { intervalMs: config.relayIntervalMs, batchSize: config.relayBatchSize },
  });
  timeouts.start();
  const retentionMs = config.retentionFinishedAfterMs;
  const pruner =
    retentionMs === null
      ? null
      : createPruner({
          pool,
          logger,
          metrics,
          options: {
            finishedAfterMs: retentionMs,
            batchSize: config.retentionBatch,
            intervalMs: config.retentionIntervalMs,
            pushesKeepAtLeastMs: RETENTION_SKEW_WINDOWS * config.webhookMaxSkewS * 1000,
          },
        });
  pruner?.start();
  const started = consumer;
  void started
    .start()
    .catch((err: Error) => logger.error({ err: loggableError(err) }, 'consumer failed to start'));
  logger.info(
    {
      prefetch: config.workerPrefetch,
      batchSize: config.workerBatchSize,
      sendConcurrency: config.workerSendConcurrency,
    },
    'worker consuming',
  );
  return {
    consumer: started,
    relay,
    pump,
    timeouts,
    pruner,
    async stop() {
      await pruner?.stop();
      await timeouts.stop();
      await pump.stop();
      await relay.stop();
      gate.close();
      await started.stop();
      await wechat.close();
    },
  };
}
