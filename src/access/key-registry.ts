import type { Pool } from '../db/pool';
import { createNotificationListener } from '../db/notification-listener';
import { startRereadTimer } from '../db/reread-timer';
import type { Logger } from '../logger';
import { loggableError } from '../loggable-error';
import { listUsableKeys } from '../store/api-keys';
import { isKeyShaped, keyDigest } from './key-token';
import type { ApiKey } from './principal';

/** The channel the api_keys table's trigger notifies (src/db/migrations/0037_api_keys.sql). */
export const KEYS_CHANNEL = 'wechat_drip_api_keys';

/** The usable API keys as this process sees them: read at start, kept current by LISTEN and a re-read. */
export interface KeyRegistry {
  /** The key this bearer token is, or undefined (not a key, unknown, revoked). */
  find(token: string): ApiKey | undefined;
  /** False until the keys were read once: a key-shaped token then cannot be told from a wrong one. */
  isLoaded(): boolean;
  /** Re-reads now; resolves once the registry reflects what Postgres held when it was called. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Keeps the unrevoked keys in memory by digest, so that a request with a key costs one SHA-256 and no
 * round-trip. A key created or revoked anywhere reaches every process by the table's NOTIFY (within
 * milliseconds), and by the re-read every `refreshMs` when a notification was lost. Postgres down at
 * start-up: the registry starts empty and not loaded, and reads the keys once it can.
 */
export async function startKeyRegistry(opts: {
  pool: Pool;
  logger: Logger;
  connectionString: string;
  searchPath?: string;
  refreshMs: number;
}): Promise<KeyRegistry> {
  const { pool, logger } = opts;
  let byDigest = new Map<string, ApiKey>();
  let loaded = false;

  async function load(): Promise<void> {
    const next = new Map<string, ApiKey>();
    for (const k of await listUsableKeys(pool)) {
      next.set(k.digest.toString('hex'), {
        id: k.id,
        name: k.name,
        appIds: new Set(k.appIds),
        operations: new Set(k.operations),
      });
    }
    byDigest = next;
    loaded = true;
  }

  // Reads run one after another: each starts after the one before it ended, so the last reflects the last
  // change notified.
  let reading: Promise<void> = Promise.resolve();
  const refresh = (): Promise<void> => {
    reading = reading.catch(() => undefined).then(load);
    return reading;
  };
  const refreshQuietly = () =>
    void refresh().catch((err: unknown) =>
      logger.warn({ err: loggableError(err) }, 'api keys re-read failed; tried again'),
    );

  await refresh().catch((err: unknown) =>
    logger.warn({ err: loggableError(err) }, 'api keys not readable yet; tried again until they are'),
  );
  const listener = createNotificationListener({
    connectionString: opts.connectionString,
    searchPath: opts.searchPath,
    channel: KEYS_CHANNEL,
    logger,
    onNotify: refreshQuietly,
    onReconnect: refreshQuietly,
  });
  await listener.ready.catch(() => undefined);
  // A key created between the first read and the LISTEN would otherwise wait for the timer.
  refreshQuietly();
  // Every second until the first read succeeds, then every `refreshMs`.
  const rereads = startRereadTimer(
    () => (loaded ? opts.refreshMs : Math.min(1000, opts.refreshMs)),
    refreshQuietly,
  );

  return {
    find(token) {
      return isKeyShaped(token) ? byDigest.get(keyDigest(token).toString('hex')) : undefined;
    },
    isLoaded: () => loaded,
    refresh,
    async stop() {
      rereads.stop();
      await listener.stop();
      await reading.catch(() => undefined);
    },
  };
}
