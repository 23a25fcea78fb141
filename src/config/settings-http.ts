import { z } from 'zod';
import { LOG_LEVELS } from '../env';
import { notPublished } from './published-secrets';
import { group, int, setting } from './setting';

/** ROLE's values: which parts a process runs. */
export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** The process, its HTTP listeners and the webhook's limits. */
export const httpSettings = group(
  'Processes and HTTP',
  {
    ROLE: setting('role', z.enum(ROLES).prefault('all'), { example: 'all' }),
    ADMIN_TOKEN: setting(
      'adminToken',
      z
        .string({ error: 'is required' })
        .min(16, 'must be at least 16 characters')
        .superRefine(notPublished('ADMIN_TOKEN')),
      { secret: true, example: '' },
    ),
    HTTP_HOST: setting('httpHost', z.string().min(1).prefault('127.0.0.1'), { example: '127.0.0.1' }),
    HTTP_PORT: setting('httpPort', int(0, 65535).prefault('3000'), { example: '3000' }),
    OPS_HOST: setting('opsHost', z.string().min(1).prefault('127.0.0.1'), { example: '127.0.0.1' }),
    OPS_PORT: setting('opsPort', int(0, 65535).prefault('3001')),
    HTTP_REQUEST_TIMEOUT_MS: setting('httpRequestTimeoutMs', int(100, 3_600_000).prefault('30000'), {
      unit: 'ms',
    }),
    HTTP_HEADERS_TIMEOUT_MS: setting('httpHeadersTimeoutMs', int(100, 3_600_000).prefault('10000'), {
      unit: 'ms',
    }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: setting('httpKeepAliveTimeoutMs', int(0, 3_600_000).prefault('65000'), {
      unit: 'ms',
    }),
    HTTP_MAX_CONNECTIONS: setting('httpMaxConnections', int(1, 1_000_000).prefault('1000')),
    HTTP_BODY_LIMIT_BYTES: setting('httpBodyLimitBytes', int(1024).prefault('65536'), { unit: 'bytes' }),
    WEBHOOK_BODY_LIMIT_BYTES: setting('webhookBodyLimitBytes', int(1024).prefault('262144'), {
      unit: 'bytes',
    }),
    WEBHOOK_MAX_SKEW_S: setting('webhookMaxSkewS', int(1).prefault('300'), { unit: 's' }),
    LOG_LEVEL: setting('logLevel', z.enum(LOG_LEVELS).prefault('info'), { example: 'info' }),
  },
  {
    ROLE: '`api` (HTTP), `worker` (relay + consumer), or both in one process (`all`)',
    ADMIN_TOKEN:
      'the bearer token of every `/v1` route and the admin page, at least 16 characters (`make run` writes a fresh one into `.env`, `make up` into `docker/.env`); a value once published in this repository is refused',
    HTTP_HOST: 'the interface the public listener (API, webhook, admin page) binds',
    HTTP_PORT: 'the port of the public listener',
    OPS_HOST:
      'the interface of the ops listener every role has (`/healthz`, detailed `/readyz`, `/metrics`); keep it off the internet',
    OPS_PORT:
      'the port of the ops listener (`0` picks a free one; two processes on one machine need different ones; with `START_SIMULATOR=true` (`make run`), `HTTP_PORT` + 1 when unset); replaces `WORKER_HTTP_PORT`, which is refused: rename it',
    HTTP_REQUEST_TIMEOUT_MS:
      'a request (headers and body) not received within this gets 408 and its socket closed',
    HTTP_HEADERS_TIMEOUT_MS:
      'the same for the headers (and for a connection that sends nothing); at most `HTTP_REQUEST_TIMEOUT_MS`',
    HTTP_KEEP_ALIVE_TIMEOUT_MS:
      'an idle keep-alive connection is closed after this; keep it above the idle timeout of every client and load balancer that reuses connections (60 s is common), so that the client always closes first',
    HTTP_MAX_CONNECTIONS:
      'open connections per listener; a connection beyond it closes the one idle the longest (keep-alive, between requests), or, when none is idle, its request is answered `503 overloaded` with `Retry-After: 1` and the connection closed. Keep it below the open-file limit (`ulimit -n`) minus about 100 for Postgres, RabbitMQ and WeChat',
    HTTP_BODY_LIMIT_BYTES: 'the largest JSON body (413 above)',
    WEBHOOK_BODY_LIMIT_BYTES: 'the largest webhook push (413 above)',
    WEBHOOK_MAX_SKEW_S:
      'pushes and URL verifications whose timestamp is further from now are refused; plaintext-mode URLs are remembered for three times this, to refuse a URL reused with another body',
    LOG_LEVEL:
      "pino's level (`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`); the simulator reads it too",
  },
);
