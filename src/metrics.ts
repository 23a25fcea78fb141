import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Pool } from './db/pool';
import { readAtScrape, registerHealthGauges } from './metrics-health';
import { countMessagesIn } from './store/message-counts';
import { MESSAGE_STATUS } from './store/message-status';
import { horizonPumpLagSeconds } from './store/horizon-pump';
import { overdueWaitSeconds } from './store/journey-waits';
import { countOwedWakeUps, oldestOwedWakeUpAgeSeconds, OWED_ENTRIES_COUNTED } from './store/wake-up-outbox';

/** Seconds: 10 ms … 10 min, for lateness (sent − due) and WeChat call durations. */
const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];
const SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Seconds: 1 ms … 10 s, for the worker's own share (a few ms when all is well). */
const PIPELINE_BUCKETS = [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/**
 * Every metric of a process, in a registry of its own (one per service instance, so that tests running
 * several instances in one process do not collide). Names follow `wechat_drip_…_total` for counters and
 * `…_seconds` for durations.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly scheduled: Counter<'channel'>;
  readonly published: Counter<'transport' | 'reason'>;
  readonly delivered: Counter<'verdict'>;
  readonly sent: Counter<'channel'>;
  readonly skipped: Counter<'reason'>;
  readonly cancelled: Counter<'scope'>;
  readonly failed: Counter<'reason'>;
  readonly unknown: Counter<'reason'>;
  readonly retries: Counter<'reason'>;
  readonly deadLettered: Counter<'reason'>;
  readonly lateness: Histogram;
  readonly pipeline: Histogram;
  readonly wechatDuration: Histogram<'endpoint' | 'outcome'>;
  readonly tokenRefreshes: Counter<'app_id' | 'outcome'>;
  readonly webhookPushes: Counter<'type' | 'verdict'>;
  readonly authorizationCodes: Counter<'by' | 'result'>;
  readonly windowChecks: Counter<'verdict'>;
  readonly journeyWaits: Counter<'outcome' | 'by'>;
  readonly retentionPruned: Counter<'table'>;
  readonly retentionPartitionsDropped: Counter;
  readonly retentionLastRun: Gauge;
  readonly retentionLag: Gauge;
}

export function createMetrics(opts: {
  pool: Pool;
  transportMode: string;
  /** The process's broker connection state, for `wechat_drip_broker_connected` (not registered without it). */
  isBrokerConnected?: () => boolean;
  /**
   * RELAY_PENDING_AFTER_MS: an outbox entry younger than this is the schedule path's, still being published,
   * and not in `wechat_drip_outbox_backlog_messages` (else a busy api would show a backlog at every
   * scrape). Default 0: every entry.
   */
  outboxOwedAfterMs?: number;
  /** PUBLISH_HORIZON, for `wechat_drip_horizon_pump_lag_seconds` (not registered when not given). */
  publishHorizonMs?: number;
}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client names these gauges `…_total`, which Prometheus reserves for counters (promtool flags
  // them); the per-type gauges nodejs_active_handles / _requests / _resources remain: sum() gives the totals.
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name: `wechat_drip_${name}_total`, help, labelNames, registers: [registry] });

  new Gauge({
    name: 'wechat_drip_transport_info',
    help: 'The delay transport this process uses (1 for the active mode).',
    labelNames: ['mode'],
    registers: [registry],
  }).set({ mode: opts.transportMode }, 1);
  // Read from Postgres at scrape time: they describe the shared state, not this process. With Postgres
  // unreachable they keep their last reading.
  new Gauge({
    name: 'wechat_drip_outbox_backlog_messages',
    help:
      'Messages accepted at least RELAY_PENDING_AFTER_MS ago whose wake-up RabbitMQ has not confirmed yet ' +
      `(named by a wake_up_outbox entry; over its ${OWED_ENTRIES_COUNTED} oldest entries at most): the relay ` +
      'publishes them once the broker takes publishes.',
    registers: [registry],
    async collect() {
      const count = await readAtScrape(() => countOwedWakeUps(opts.pool, opts.outboxOwedAfterMs ?? 0));
      if (count !== null) this.set(count);
    },
  });
  new Gauge({
    name: 'wechat_drip_outbox_oldest_age_seconds',
    help: 'How long ago the oldest wake_up_outbox entry was written (0 when the outbox is empty).',
    registers: [registry],
    async collect() {
      const seconds = await readAtScrape(() => oldestOwedWakeUpAgeSeconds(opts.pool));
      if (seconds !== null) this.set(seconds);
    },
  });
  new Gauge({
    name: 'wechat_drip_queued_messages',
    help:
      'Messages waiting to fall due (status queued): in the delay transport of this process, or in Postgres ' +
      'beyond the publishing horizon.',
    labelNames: ['transport'],
    registers: [registry],
    async collect() {
      const count = await readAtScrape(() => countMessagesIn(opts.pool, MESSAGE_STATUS.queued));
      if (count !== null) this.set({ transport: opts.transportMode }, count);
    },
  });
  const horizonMs = opts.publishHorizonMs;
  if (horizonMs !== undefined) {
    new Gauge({
      name: 'wechat_drip_horizon_pump_lag_seconds',
      help:
        'How far the horizon pump is behind: the end of the publishing horizon (now + PUBLISH_HORIZON) minus ' +
        'the due time of the earliest message still waiting in Postgres for its wake-up; 0 when it keeps up.',
      registers: [registry],
      async collect() {
        const seconds = await readAtScrape(() => horizonPumpLagSeconds(opts.pool, horizonMs));
        if (seconds !== null) this.set(seconds);
      },
    });
  }
  new Gauge({
    name: 'wechat_drip_journey_waits_overdue_seconds',
    help:
      'How long ago the deadline of the oldest journey wait still open passed (0 when none is): the ' +
      "workers' timeouts pass takes each at its deadline, within RELAY_INTERVAL_MS.",
    registers: [registry],
    async collect() {
      const seconds = await readAtScrape(() => overdueWaitSeconds(opts.pool));
      if (seconds !== null) this.set(seconds);
    },
  });
  registerHealthGauges(registry, opts);

  return {
    registry,
    scheduled: counter('messages_scheduled', 'Messages accepted (API, batch, sequence steps).', ['channel']),
    published: counter('wakeups_published', 'Wake-ups confirmed by the broker.', ['transport', 'reason']),
    delivered: counter('wakeups_delivered', 'Wake-ups consumed by a worker, by what the claim found.', [
      'verdict',
    ]),
    sent: counter('messages_sent', 'Messages WeChat accepted.', ['channel']),
    skipped: counter('messages_skipped', 'Messages not sent, by reason (window_closed, stale…).', ['reason']),
    cancelled: counter('messages_cancelled', 'Cancellations recorded, by scope.', ['scope']),
    failed: counter('messages_failed', 'Messages given up on, by reason (errcode:N, no_answer…).', [
      'reason',
    ]),
    unknown: counter(
      'messages_unknown',
      'Messages that may have reached WeChat, recorded unknown and not sent again, by reason (answer_lost).',
      ['reason'],
    ),
    retries: counter('send_retries', 'Sends re-delayed for another attempt, by reason.', ['reason']),
    deadLettered: counter('dead_lettered', 'Wake-ups parked in the dead-letter queue, by reason.', [
      'reason',
    ]),
    lateness: new Histogram({
      name: 'wechat_drip_lateness_seconds',
      help: 'Time from due to sent.',
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    pipeline: new Histogram({
      name: 'wechat_drip_wakeup_to_answer_seconds',
      help:
        "The worker's share of the lateness, per send: from its wake-up in hand and due (the later " +
        "of the delivery and the due time) to WeChat's answer: batching, the claim, the send.",
      buckets: PIPELINE_BUCKETS,
      registers: [registry],
    }),
    wechatDuration: new Histogram({
      name: 'wechat_drip_wechat_request_duration_seconds',
      help: 'Duration of WeChat send calls (including one token retry).',
      labelNames: ['endpoint', 'outcome'],
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    tokenRefreshes: counter('token_refreshes', 'Access-token fetches from stable_token.', [
      'app_id',
      'outcome',
    ]),
    webhookPushes: counter('webhook_pushes', 'Webhook pushes, by type and verdict.', ['type', 'verdict']),
    authorizationCodes: counter(
      'authorization_codes',
      'Authorization codes brought by the callback or a push, by result (exchanged, earlier, refused, failed).',
      ['by', 'result'],
    ),
    windowChecks: counter('window_checks', 'Contact-window checks at claim time, by verdict.', ['verdict']),
    journeyWaits: counter(
      'journey_waits_resolved',
      'Journey waits resolved, by outcome (yes: the path the condition takes; no: the timeout) and by what ' +
        "resolved them (push, event: in their transaction; pass: the workers' timeouts pass).",
      ['outcome', 'by'],
    ),
    retentionPruned: counter('retention_pruned', 'Rows the retention pruner deleted, by table.', ['table']),
    retentionPartitionsDropped: counter(
      'retention_partitions_dropped',
      'Partitions of scheduled_messages (with their delivery_attempts) the retention pruner dropped.',
      [],
    ),
    retentionLastRun: new Gauge({
      name: 'wechat_drip_retention_last_run_timestamp_seconds',
      help: 'When this process last finished a retention run (Unix time); only the process holding the lock runs.',
      registers: [registry],
    }),
    retentionLag: new Gauge({
      name: 'wechat_drip_retention_lag_seconds',
      help: 'At the end of the last run: how much longer ago than the retention age the oldest finished message finished.',
      registers: [registry],
    }),
  };
}
