import { duration, durationOrOff } from './duration';
import { group, int, setting } from './setting';

/** The worker's batches and send slots, retries, the relay, and retention. */
export const workerSettings = group(
  'Worker, relay and retention',
  {
    WORKER_PREFETCH: setting('workerPrefetch', int(1, 2000).prefault('500')),
    WORKER_BATCH_SIZE: setting('workerBatchSize', int(1, 1000).prefault('100')),
    WORKER_BATCH_WAIT_MS: setting('workerBatchWaitMs', int(0, 1000).prefault('5'), { unit: 'ms' }),
    WORKER_CONCURRENT_BATCHES: setting('workerConcurrentBatches', int(1, 100).prefault('4')),
    WORKER_SEND_CONCURRENCY: setting('workerSendConcurrency', int(1, 4096).optional(), {
      defaultNote: '`WECHAT_MAX_CONNECTIONS` (64)',
    }),
    EARLY_TOLERANCE_MS: setting('earlyToleranceMs', int(0, 10000).prefault('20'), { unit: 'ms' }),
    RETRY_MAX_ATTEMPTS: setting('retryMaxAttempts', int(1, 100).prefault('8')),
    RETRY_BASE_DELAY_MS: setting('retryBaseDelayMs', int(1).prefault('1000'), { unit: 'ms' }),
    RETRY_MAX_DELAY_MS: setting('retryMaxDelayMs', int(1).prefault('600000'), { unit: 'ms' }),
    SENDING_TIMEOUT_MS: setting('sendingTimeoutMs', int(1000).prefault('300000'), { unit: 'ms' }),
    RELAY_INTERVAL_MS: setting('relayIntervalMs', int(10).prefault('1000'), { unit: 'ms' }),
    RELAY_PENDING_AFTER_MS: setting('relayPendingAfterMs', int(0).prefault('5000'), { unit: 'ms' }),
    RELAY_OVERDUE_AFTER_MS: setting('relayOverdueAfterMs', int(1000).prefault('300000'), { unit: 'ms' }),
    RELAY_BATCH_SIZE: setting('relayBatchSize', int(1, 10000).prefault('500')),
    HORIZON_PUMP_BATCH_SIZE: setting('horizonPumpBatchSize', int(1, 50_000).prefault('5000')),
    RETENTION_FINISHED_AFTER: setting('retentionFinishedAfterMs', durationOrOff(1000).prefault('30d')),
    RETENTION_BATCH: setting('retentionBatch', int(1, 100_000).prefault('1000')),
    RETENTION_INTERVAL: setting('retentionIntervalMs', duration(100).prefault('60s')),
  },
  {
    WORKER_PREFETCH: 'unacknowledged wake-ups one worker holds',
    WORKER_BATCH_SIZE: 'messages per claim round-trip',
    WORKER_BATCH_WAIT_MS:
      'the longest wait for a batch to fill while another is being handled; an idle worker does not wait',
    WORKER_CONCURRENT_BATCHES:
      'batches one worker handles at once; each claims only as many rows as there are free send slots',
    WORKER_SEND_CONCURRENCY:
      'rows a worker holds in `sending` at most (a row is claimed only into a free send slot, kept until its outcome is recorded), so what a killed worker leaves `unknown`; at most `WECHAT_MAX_CONNECTIONS`',
    EARLY_TOLERANCE_MS: 'a wake-up this close to its due time is handled now rather than re-delayed',
    RETRY_MAX_ATTEMPTS: 'send attempts before a message is `failed` and dead-lettered',
    RETRY_BASE_DELAY_MS: 'the first retry delay; it doubles per attempt, with equal jitter',
    RETRY_MAX_DELAY_MS: 'the longest retry delay; not below `RETRY_BASE_DELAY_MS`',
    SENDING_TIMEOUT_MS:
      'a row in `sending` longer than this becomes `unknown` (or is resent, for `atLeastOnce` accounts and template messages)',
    RELAY_INTERVAL_MS: 'how often the relay looks for wake-ups to publish',
    RELAY_PENDING_AFTER_MS:
      'an outbox entry (messages whose wake-ups were not confirmed) older than this is published by the relay',
    RELAY_OVERDUE_AFTER_MS:
      'a `queued` row overdue by more than this gets a new wake-up (a wake-up lost with a broker node)',
    RELAY_BATCH_SIZE: 'rows per relay round',
    HORIZON_PUMP_BATCH_SIZE:
      'rows the [horizon pump](guarantees.md#the-publishing-horizon) moves into the outbox in one transaction and publishes together; a crash republishes at most one such batch',
    RETENTION_FINISHED_AFTER:
      'finished messages (with their attempts), processed pushes and ledger rows covering nothing open are deleted this long after they finished (`30d`, `12h`, `90s`, or ms; `0` / `off` keeps everything); a message’s `idempotencyKey` is remembered as long as the message — [retention](operations.md#retention-what-is-deleted-and-when)',
    RETENTION_BATCH: 'rows the pruner deletes per transaction',
    RETENTION_INTERVAL:
      'how often a worker tries a pruning run (one process at a time), as a duration like `60s`',
  },
);
