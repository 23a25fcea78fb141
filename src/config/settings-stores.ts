import { z } from 'zod';
import { duration } from './duration';
import { group, int, setting } from './setting';

/** DELAY_MODE's values: how wake-ups are delayed. */
export const DELAY_MODES = ['auto', 'plugin', 'levels'] as const;
export type DelayMode = (typeof DELAY_MODES)[number];

/**
 * RABBITMQ_URL: one amqp(s) URL, or several comma-separated (the nodes of a cluster, tried in turn). An
 * issue names the entry by position, never by text: a URL carries the broker's password.
 */
function parseBrokerUrls(text: string, ctx: z.RefinementCtx): string[] {
  const urls = text.split(',').map((u) => u.trim());
  urls.forEach((url, i) => {
    if (!URL.canParse(url) || !/^amqps?:$/.test(new URL(url).protocol)) {
      const which = urls.length > 1 ? `entry ${i + 1}` : 'the value';
      ctx.addIssue({ code: 'custom', message: `${which} is not an amqp:// or amqps:// URL` });
    }
  });
  return urls;
}

/** Postgres, RabbitMQ and the delay transports. */
export const storeSettings = group(
  'Postgres and RabbitMQ',
  {
    DATABASE_URL: setting(
      'databaseUrl',
      z.string().url().prefault('postgres://postgres@127.0.0.1:5432/wechat_drip'),
      { example: 'postgres://postgres@127.0.0.1:5432/wechat_drip' },
    ),
    DATABASE_POOL_SIZE: setting('databasePoolSize', int(1, 1000).prefault('10')),
    RABBITMQ_URL: setting(
      'rabbitmqUrls',
      z
        .string()
        .transform((text, ctx) => parseBrokerUrls(text, ctx))
        .prefault('amqp://guest:guest@127.0.0.1:5672'),
      { example: 'amqp://guest:guest@127.0.0.1:5672' },
    ),
    DELAY_MODE: setting('delayMode', z.enum(DELAY_MODES).prefault('auto'), { example: 'auto' }),
    BROKER_PREFIX: setting(
      'brokerPrefix',
      z
        .string()
        .regex(/^[a-z0-9][a-z0-9_-]*(\.[a-z0-9_-]+)*$/, 'lowercase letters, digits, - _ and dots')
        .prefault('wechat-drip'),
    ),
    LEVELS_UNIT_MS: setting('levelsUnitMs', int(10, 60000).prefault('100'), { unit: 'ms' }),
    LEVELS_COUNT: setting('levelsCount', int(4, 40).prefault('26')),
    PLUGIN_MAX_DELAY_MS: setting('pluginMaxDelayMs', int(1000, 4_294_967_295).prefault('86400000'), {
      unit: 'ms',
    }),
    MAX_SCHEDULE_AHEAD_DAYS: setting('maxScheduleAheadDays', int(1, 3650).prefault('400'), { unit: 'days' }),
    PUBLISH_TIMEOUT_MS: setting('publishTimeoutMs', int(100).prefault('10000'), { unit: 'ms' }),
    PUBLISH_HORIZON: setting('publishHorizonMs', duration(1000).prefault('1h')),
    MESSAGE_PARTITION: setting('messagePartitionMs', duration(1000).prefault('1d')),
  },
  {
    DATABASE_URL: 'the Postgres connection string',
    DATABASE_POOL_SIZE: 'connections in each process’s pool',
    RABBITMQ_URL:
      'RabbitMQ; the nodes of a cluster comma-separated (`amqp://…@mq1/drip,amqp://…@mq2/drip,…`), each tried in turn on connect and reconnect ([operations](operations.md#a-rabbitmq-cluster))',
    DELAY_MODE:
      '`auto` (probes for the delayed-message plugin at start-up), `plugin` or `levels` ([which one](guarantees.md#delay-transports-which-one))',
    BROKER_PREFIX: 'the prefix of every exchange and queue name',
    LEVELS_UNIT_MS: 'levels transport: the TTL of level 0; level L waits 2^L units',
    LEVELS_COUNT:
      'levels transport: the number of levels; the longest single chain of hops is (2^N − 1) units (26: about 77 days)',
    PLUGIN_MAX_DELAY_MS: 'plugin transport: the longest single `x-delay` (1 day); longer waits are chained',
    MAX_SCHEDULE_AHEAD_DAYS: 'the furthest `sendAt` accepted',
    PUBLISH_TIMEOUT_MS: 'how long a publish waits for the broker’s confirm',
    PUBLISH_HORIZON:
      'a message due further ahead is only written to Postgres when scheduled; a worker’s horizon pump publishes its wake-up as it comes within this (`1h`, `30m`, …) — [the publishing horizon](guarantees.md#the-publishing-horizon)',
    MESSAGE_PARTITION:
      'the span of due times in one partition of the message table; retention drops a partition whole once its last message finished `RETENTION_FINISHED_AFTER` ago (`1d`; shorter only to try retention out) — [partitions](operations.md#partitions-of-the-message-table)',
  },
);
