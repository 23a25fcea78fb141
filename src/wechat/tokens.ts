import type { Dispatcher } from 'undici';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { withTransaction, type Pool } from '../db/pool';
import {
  expireStoredToken,
  lockTokenRefresh,
  readToken,
  saveToken,
  type StoredToken,
} from '../store/access-tokens';
import { describeRequestError, interpretAnswer, postStableToken } from './http-answer';

/** Access tokens per account, shared by every process through Postgres. */
export interface TokenStore {
  /** A token with more than the refresh margin of life left; fetches one when needed. */
  getToken(appId: string): Promise<string>;
  /** Marks `token` expired if it is still the account's current one (compare-and-expire). */
  expireToken(appId: string, token: string): Promise<void>;
}

/** Fetches a fresh token from WeChat: the token and the life it was given, in ms. */
export type TokenFetch = () => Promise<{ token: string; lifeMs: number }>;

/**
 * Seals a token for `access_tokens` and opens a stored one (src/accounts/secret-box.ts, bound to its
 * app id). `open` answers null when the configured keys do not open it: the token is a cache, fetched
 * again and stored sealed with the current key.
 */
export interface TokenSealer {
  seal(appId: string, token: string): string;
  open(appId: string, sealed: string): string | null;
}

/** Options of `createTokenStore`. */
export interface TokenStoreOptions {
  readonly pool: Pool;
  readonly sealer: TokenSealer;
  /** Told of every stable_token call (`ok` or `error`), for the metrics. */
  readonly onRefresh?: (appId: string, outcome: 'ok' | 'error') => void;
  /** WeChat API base URL, without trailing slash (the simulator in development). */
  readonly baseUrl: string;
  /** The account's AppSecret as configured now; undefined or null when it has none (an error). */
  readonly secretOf: (appId: string) => string | null | undefined;
  /**
   * For the third-party platform: how to fetch a token for `appId` (the component's key or a platform
   * account) instead of stable_token, resolved before the refresh lock is taken; null for own accounts.
   */
  readonly platformSourceOf?: (appId: string) => (() => Promise<TokenFetch>) | null;
  /** Refresh when less than this many ms of life remain (at most half of the life a token was given). */
  readonly refreshMarginMs: number;
  /** Timeout of one stable_token call in ms. */
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** HTTP dispatcher for the token endpoint; default undici's global one. */
  readonly dispatcher?: Dispatcher;
}

/**
 * Token endpoint errcodes that are configuration errors: invalid grant_type, appid, appsecret, IP not
 * whitelisted, AppSecret frozen, missing appid / secret, and 40001 which the token API also uses for a
 * wrong secret (reference/wechat.md §3, §4). Anything else (-1, quotas, no answer) may heal.
 */
const CONFIG_ERRCODES = new Set([40001, 40002, 40013, 40125, 40164, 61004, 40243, 41002, 41004]);

/** After a failed refresh, a still-valid token is used this long before the next attempt. */
const REFRESH_RETRY_AFTER_MS = 1000;

interface CachedToken {
  readonly token: string;
  /** As stored: what compare-and-expire compares. */
  readonly sealed: string;
  readonly expiresAt: number;
  readonly refreshAt: number;
}

/**
 * Creates the token store. Tokens come from `stable_token` in normal mode (which never invalidates other
 * holders), are cached in memory and in `access_tokens`, and are refreshed by one caller at a time:
 * single-flight per account in-process, and an advisory lock plus a re-read of the row across processes.
 * Never logs a token or a secret.
 */
export function createTokenStore(opts: TokenStoreOptions): TokenStore {
  const { pool, logger } = opts;
  const memory = new Map<string, CachedToken>();
  const inflight = new Map<string, Promise<string>>();

  // A token is not refreshed in the first half of its life even with a large margin: stable_token hands
  // back the same token until its last 5 minutes, so refreshing earlier would only repeat the call.
  const remember = (appId: string, token: string, sealed: string, remainingMs: number, lifeMs: number) => {
    const at = Date.now();
    const margin = Math.min(opts.refreshMarginMs, lifeMs / 2);
    memory.set(appId, { token, sealed, expiresAt: at + remainingMs, refreshAt: at + remainingMs - margin });
    return token;
  };
  /** The stored token, opened and remembered, when it is fresh and opens; otherwise null (fetch another). */
  const freshStored = (appId: string, row: StoredToken | null): string | null => {
    if (!row || row.remainingMs <= Math.min(opts.refreshMarginMs, row.lifeMs / 2)) return null;
    const token = opts.sealer.open(appId, row.sealed);
    if (token === null) {
      logger.warn(
        { appId },
        'the stored access token does not open with the configured keys: fetching another',
      );
      return null;
    }
    return remember(appId, token, row.sealed, row.remainingMs, row.lifeMs);
  };

  async function load(appId: string, sourceFor: () => Promise<TokenFetch>): Promise<string> {
    const stored = freshStored(appId, await readToken(pool, appId));
    if (stored !== null) return stored;
    const fetchFresh = await sourceFor();
    return withTransaction(pool, async (client) => {
      await lockTokenRefresh(client, appId);
      // Another process refreshed while this one waited for the lock.
      const again = freshStored(appId, await readToken(client, appId));
      if (again !== null) return again;
      const fetched = await fetchFresh();
      const sealed = opts.sealer.seal(appId, fetched.token);
      await saveToken(client, appId, sealed, fetched.lifeMs);
      logger.info({ appId, expiresInS: Math.round(fetched.lifeMs / 1000) }, 'access token refreshed');
      opts.onRefresh?.(appId, 'ok');
      return remember(appId, fetched.token, sealed, fetched.lifeMs, fetched.lifeMs);
    });
  }

  async function fetchStableToken(appId: string, secret: string): Promise<{ token: string; lifeMs: number }> {
    const sentAt = Date.now();
    let answered: { status: number; text: string };
    try {
      answered = await postStableToken(opts, appId, secret);
    } catch (err) {
      throw tokenError(appId, null, describeRequestError(err), err);
    }
    const answer = interpretAnswer(answered.status, answered.text, true);
    const token = answer.json?.access_token;
    const expiresIn = answer.json?.expires_in;
    if (answer.errcode !== 0 || typeof token !== 'string' || typeof expiresIn !== 'number') {
      throw tokenError(
        appId,
        answer.errcode,
        answer.errcode === 0 ? 'answer without a token' : answer.errmsg,
      );
    }
    // expires_in counts from WeChat's answer; counting from our request errs on the safe side.
    return { token, lifeMs: expiresIn * 1000 - (Date.now() - sentAt) };
  }

  function tokenError(appId: string, errcode: number | null, errmsg: string, cause?: unknown): AppError {
    const retryable = errcode === null || !CONFIG_ERRCODES.has(errcode);
    logger.warn({ appId, errcode, errmsg, retryable }, 'access token request failed');
    opts.onRefresh?.(appId, 'error');
    return new AppError('token_error', `access token for ${appId} unavailable: ${errmsg}`, {
      httpStatus: retryable ? 503 : 500,
      retryable,
      details: { appId, errcode, errmsg },
      cause,
    });
  }

  async function refresh(appId: string, sourceFor: () => Promise<TokenFetch>): Promise<string> {
    try {
      return await load(appId, sourceFor);
    } catch (err) {
      // Still within its life: keep using the old token, and try again a little later rather than on
      // every send while the token endpoint is unwell.
      const cached = memory.get(appId);
      const now = Date.now();
      if (!(cached && cached.expiresAt > now && err instanceof AppError && err.retryable)) throw err;
      memory.set(appId, { ...cached, refreshAt: Math.min(cached.expiresAt, now + REFRESH_RETRY_AFTER_MS) });
      return cached.token;
    }
  }

  function stableTokenSource(appId: string): () => Promise<TokenFetch> {
    const secret = opts.secretOf(appId);
    if (secret === undefined || secret === null) {
      throw new AppError('unknown_account', `no WeChat account ${appId} is configured`, {
        httpStatus: 400,
      });
    }
    return async () => () => fetchStableToken(appId, secret);
  }

  return {
    async getToken(appId) {
      const sourceFor = opts.platformSourceOf?.(appId) ?? stableTokenSource(appId);
      const cached = memory.get(appId);
      if (cached && Date.now() < cached.refreshAt) return cached.token;
      let flight = inflight.get(appId);
      if (flight === undefined) {
        flight = refresh(appId, sourceFor).finally(() => inflight.delete(appId));
        inflight.set(appId, flight);
      }
      return flight;
    },
    async expireToken(appId, token) {
      // Every token this process hands out is remembered until it is replaced: one no longer remembered
      // was replaced here after a newer one was stored, so the stored one is not it.
      const cached = memory.get(appId);
      if (cached?.token !== token) return;
      await expireStoredToken(pool, appId, cached.sealed);
      if (memory.get(appId)?.token === token) memory.delete(appId);
    },
  };
}
