import pg from 'pg';
import type { Logger } from '../logger';
import { loggableError } from '../loggable-error';

/** First wait before reconnecting after the connection dropped; doubles up to the maximum. */
const RECONNECT_DELAY_MS = 250;
const MAX_RECONNECT_DELAY_MS = 5000;

/** A LISTEN on a connection of its own; `stop` ends it. */
export interface NotificationListener {
  /** Resolves once the first LISTEN is in force (rejects if the first connection fails). */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * LISTENs on `channel` on a dedicated connection (a pooled one would be handed to other queries), and
 * calls `onNotify` with each payload addressed to this process's schema (payloads read
 * `<schema>:<detail>`; tests share a database, one schema each). When the connection drops (a Postgres
 * restart), it reconnects with backoff and calls `onReconnect`: notifications sent meanwhile were lost, so
 * the caller re-reads what it follows.
 */
export function createNotificationListener(opts: {
  connectionString: string;
  channel: string;
  searchPath?: string;
  logger: Logger;
  onNotify: (detail: string) => void;
  onReconnect: () => void;
}): NotificationListener {
  const { logger } = opts;
  let client: pg.Client | null = null;
  let stopped = false;
  let delayMs = RECONNECT_DELAY_MS;
  let timer: NodeJS.Timeout | null = null;

  async function connect(): Promise<void> {
    const c = new pg.Client({
      connectionString: opts.connectionString,
      application_name: `wechat-drip listener ${opts.searchPath ?? ''}`.trim(),
      options: opts.searchPath ? `-c search_path=${opts.searchPath}` : undefined,
      connectionTimeoutMillis: 5000,
    });
    let dropped = false;
    const onDrop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      if (client === c) client = null;
      if (!stopped) {
        logger.warn(
          { channel: opts.channel, err: err && loggableError(err) },
          'notification listener lost its connection',
        );
        scheduleReconnect();
      }
    };
    c.on('error', onDrop);
    c.on('end', () => onDrop());
    try {
      await c.connect();
      const { rows } = await c.query<{ schema: string }>('SELECT current_schema() AS schema');
      const prefix = `${rows[0].schema}:`;
      c.on('notification', (n) => {
        if (n.payload?.startsWith(prefix)) opts.onNotify(n.payload.slice(prefix.length));
      });
      await c.query(`LISTEN ${opts.channel}`);
    } catch (err) {
      onDrop(err as Error);
      await c.end().catch(() => undefined);
      throw err;
    }
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    delayMs = RECONNECT_DELAY_MS;
  }

  function scheduleReconnect(): void {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = null;
      connect().then(
        () => {
          if (stopped) return;
          logger.info({ channel: opts.channel }, 'notification listener reconnected');
          opts.onReconnect();
        },
        () => {
          delayMs = Math.min(delayMs * 2, MAX_RECONNECT_DELAY_MS);
        },
      );
    }, delayMs);
  }

  const ready = connect();
  ready.catch(() => undefined);
  return {
    ready,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
