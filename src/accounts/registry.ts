import { isTransientDbError } from '../db/errors';
import type { Pool } from '../db/pool';
import { createNotificationListener, type NotificationListener } from '../db/notification-listener';
import { startRereadTimer } from '../db/reread-timer';
import type { Logger } from '../logger';
import { listAccounts } from '../store/accounts';
import { type Account, openAccount } from './account';
import type { SecretBox } from './secret-box';
import { loggableError } from '../loggable-error';

/** The channel the accounts table's trigger notifies (src/db/migrations/0010_accounts.sql). */
export const ACCOUNTS_CHANNEL = 'wechat_drip_accounts';

/** What the consumers read of the registry. */
export type Accounts = Pick<AccountRegistry, 'get' | 'all'>;

/** The accounts as this process sees them: loaded at start, kept current by LISTEN and a periodic re-read. */
export interface AccountRegistry {
  /** The account, or undefined when there is none of that app id (deleted, or never created). */
  get(appId: string): Account | undefined;
  /** Every account, in app id order. */
  all(): readonly Account[];
  /** Re-reads now; resolves once the registry reflects what Postgres held when it was called. */
  refresh(): Promise<void>;
  /** False until the accounts were read once (Postgres unreachable, or not migrated, at start-up). */
  isLoaded(): boolean;
  /** Stops listening and the timer. */
  stop(): Promise<void>;
}

export interface RegistryOptions {
  readonly pool: Pool;
  readonly box: SecretBox;
  readonly logger: Logger;
  /** For the dedicated LISTEN connection. */
  readonly connectionString: string;
  readonly searchPath?: string;
  /** The safety-net re-read's period (notifications can be lost while the listener reconnects). */
  readonly refreshMs: number;
  /** Runs once before the first read that succeeds (the WECHAT_ACCOUNTS import). */
  readonly prepare?: () => Promise<void>;
}

/** While the accounts could not be read yet, another try this often. */
const NOT_LOADED_RETRY_MS = 1000;

/** Postgres unreachable, or the accounts table not migrated yet: the read is tried again later. */
const isNotReadyYet = (err: unknown): boolean =>
  isTransientDbError(err) || (err as { code?: unknown } | null)?.code === '42P01';

/**
 * Loads every account, opening its secrets: a secret that does not open (no key, wrong key) fails the
 * start with an error naming the account and the problem, never the secret. Later re-reads keep serving
 * an account whose secrets stop opening as it was, and log the problem. When Postgres is unreachable or
 * not migrated at start-up, the registry starts empty (`isLoaded` false) and reads the accounts once it
 * can; an account whose secrets do not open then is logged and left out.
 */
export async function startAccountRegistry(opts: RegistryOptions): Promise<AccountRegistry> {
  const { pool, box, logger } = opts;
  let accounts = new Map<string, Account>();
  let list: readonly Account[] = [];
  /** Each account's stored row as read last (sealed secrets included), to tell a changed one. */
  let prints = new Map<string, string>();
  let loaded = false;

  async function load(strict: boolean): Promise<void> {
    if (!loaded) await opts.prepare?.();
    const next = new Map<string, Account>();
    const nextPrints = new Map<string, string>();
    for (const stored of await listAccounts(pool)) {
      const previous = accounts.get(stored.appId);
      const print = JSON.stringify(stored);
      nextPrints.set(stored.appId, print);
      // Unchanged since the last read: the same object (consumers cache what they derive from it).
      if (previous && prints.get(stored.appId) === print) {
        next.set(stored.appId, previous);
        continue;
      }
      try {
        next.set(stored.appId, openAccount(box, stored));
      } catch (err) {
        if (strict) throw err;
        logger.error({ appId: stored.appId, err: loggableError(err) }, 'account secrets do not open');
        nextPrints.delete(stored.appId);
        if (previous) next.set(stored.appId, previous);
      }
    }
    accounts = next;
    prints = nextPrints;
    list = [...next.values()];
    if (!loaded) logger.info({ accounts: list.length }, 'accounts loaded');
    loaded = true;
  }

  // One re-read at a time; a request during one runs one more afterwards (it may have missed the change).
  let running: Promise<void> | null = null;
  let again: Promise<void> | null = null;
  function refresh(): Promise<void> {
    if (!running) {
      running = load(false).finally(() => (running = null));
      return running;
    }
    again ??= running
      .catch(() => undefined)
      .then(() => {
        again = null;
        return refresh();
      });
    return again;
  }
  // Quiet while Postgres is not ready yet: the start-up warning said so, and this runs every second then.
  const refreshQuietly = () =>
    void refresh().catch((err: Error) =>
      logger[loaded || !isNotReadyYet(err) ? 'warn' : 'debug'](
        { err: loggableError(err) },
        'accounts re-read failed',
      ),
    );

  try {
    await load(true);
  } catch (err) {
    if (!isNotReadyYet(err)) throw err;
    logger.warn({ err: loggableError(err) }, 'accounts not readable yet; tried again until they are');
  }
  const listener: NotificationListener = createNotificationListener({
    connectionString: opts.connectionString,
    searchPath: opts.searchPath,
    channel: ACCOUNTS_CHANNEL,
    logger,
    onNotify: refreshQuietly,
    onReconnect: refreshQuietly,
  });
  // Not listening yet (Postgres down): the listener keeps reconnecting, and re-reads when it succeeds.
  await listener.ready.catch((err: Error) =>
    logger.warn({ err: loggableError(err) }, 'accounts listener not connected yet; reconnecting'),
  );
  // A change made between the first read and the LISTEN would otherwise wait for the timer.
  if (loaded) await refresh();
  const rereads = startRereadTimer(
    () => (loaded ? opts.refreshMs : Math.min(NOT_LOADED_RETRY_MS, opts.refreshMs)),
    refreshQuietly,
  );

  return {
    get: (appId) => accounts.get(appId),
    all: () => list,
    refresh,
    isLoaded: () => loaded,
    async stop() {
      rereads.stop();
      await listener.stop();
      await running?.catch(() => undefined);
    },
  };
}
