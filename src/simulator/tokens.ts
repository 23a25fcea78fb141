import { randomBytes } from 'node:crypto';
import type { SimulatorAccount } from './config';
import { WECHAT_ERRORS, type WechatError } from './wechat-errors';

/** A successful token answer, as WeChat writes it. */
export interface IssuedToken {
  readonly access_token: string;
  /** Remaining lifetime in whole seconds. */
  readonly expires_in: number;
}

/** The result of checking a send's `access_token`: the account it belongs to, or WeChat's error. */
export type TokenCheck = { readonly appId: string } | WechatError;

/** Token-endpoint counters for /__sim/stats. */
export interface TokenStats {
  requests: { stable: number; classic: number };
  issued: number;
}

/** Issues, rotates, expires and checks access tokens the way WeChat does (reference/wechat.md §4). */
export interface TokenRegistry {
  /** `POST /cgi-bin/stable_token` with its parsed JSON body. */
  stableToken(body: unknown): IssuedToken | WechatError;
  /** `GET /cgi-bin/token` with its query. */
  classicToken(query: URLSearchParams): IssuedToken | WechatError;
  /** Resolves a send's token; null or '' means the query had none. */
  check(token: string | null): TokenCheck;
  /** Makes every current token of the account answer 40001; returns how many were revoked. */
  invalidate(appId: string): number;
  /** Knows the account from now on with this AppSecret (replacing the one it had). */
  register(appId: string, secret: string): void;
  /**
   * Issues a third-party platform token (`component` for the component, `authorizer` for an account it
   * acts for, usable for sends): the previous ones of that app and kind stay valid 5 more minutes at most.
   */
  issuePlatformToken(appId: string, kind: 'component' | 'authorizer'): IssuedToken;
  readonly stats: TokenStats;
}

interface TokenRecord {
  readonly appId: string;
  readonly kind: 'stable' | 'classic' | 'component' | 'authorizer';
  expiresAt: number;
  revoked: boolean;
}

// WeChat keeps both tokens valid for 5 minutes around a refresh (§4.1, §4.2).
const OVERLAP_MS = 300_000;
// Expired tokens are kept this long so that they answer 42001 rather than 40001, then forgotten.
const FORGET_AFTER_MS = 3_600_000;

/**
 * Creates the token registry. Stable tokens rotate when less than 5 minutes remain — or, for lifetimes
 * of 10 minutes and less (tests), in the last half of their life — and the old one stays valid until its
 * own expiry; `force_refresh` revokes the account's stable tokens. Each classic call issues a new token and
 * cuts the previous classic tokens to at most 5 more minutes. The two families are independent.
 */
export function createTokenRegistry(opts: {
  accounts: readonly SimulatorAccount[];
  tokenTtlSeconds: number;
  now?: () => number;
}): TokenRegistry {
  const now = opts.now ?? Date.now;
  const ttlMs = opts.tokenTtlSeconds * 1000;
  const rotateWithinMs = Math.min(OVERLAP_MS, ttlMs / 2);
  const secrets = new Map(opts.accounts.map((a) => [a.appId, a.secret]));
  const tokens = new Map<string, TokenRecord>();
  const currentStable = new Map<string, string>();
  const stats: TokenStats = { requests: { stable: 0, classic: 0 }, issued: 0 };

  function authenticate(grantType: unknown, appid: unknown, secret: unknown): WechatError | string {
    if (grantType !== 'client_credential') return WECHAT_ERRORS.invalidGrantType;
    if (typeof appid !== 'string' || appid === '') return WECHAT_ERRORS.appidMissing;
    const expected = secrets.get(appid);
    if (expected === undefined) return WECHAT_ERRORS.invalidAppid;
    if (typeof secret !== 'string' || secret === '') return WECHAT_ERRORS.appsecretMissing;
    if (secret !== expected) return WECHAT_ERRORS.invalidAppsecret;
    return appid;
  }

  function issue(appId: string, kind: TokenRecord['kind'], at: number): IssuedToken {
    for (const [token, record] of tokens) {
      if (record.expiresAt < at - FORGET_AFTER_MS) tokens.delete(token);
    }
    const token = randomBytes(96).toString('base64url');
    tokens.set(token, { appId, kind, expiresAt: at + ttlMs, revoked: false });
    stats.issued += 1;
    return { access_token: token, expires_in: opts.tokenTtlSeconds };
  }

  /** A new token; the previous ones of the app and kind live 5 more minutes at most. */
  function rotate(appId: string, kind: TokenRecord['kind']): IssuedToken {
    const at = now();
    for (const record of tokens.values()) {
      if (record.appId === appId && record.kind === kind) {
        record.expiresAt = Math.min(record.expiresAt, at + OVERLAP_MS);
      }
    }
    return issue(appId, kind, at);
  }

  function revokeWhere(predicate: (record: TokenRecord) => boolean): number {
    let revoked = 0;
    for (const record of tokens.values()) {
      if (!record.revoked && predicate(record)) {
        record.revoked = true;
        revoked += 1;
      }
    }
    return revoked;
  }

  return {
    stats,
    stableToken(body) {
      stats.requests.stable += 1;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        return WECHAT_ERRORS.dataFormatError;
      const b = body as Record<string, unknown>;
      const appId = authenticate(b.grant_type, b.appid, b.secret);
      if (typeof appId !== 'string') return appId;
      if (b.force_refresh !== undefined && typeof b.force_refresh !== 'boolean') {
        return WECHAT_ERRORS.dataFormatError;
      }
      const at = now();
      if (b.force_refresh === true) {
        revokeWhere((r) => r.appId === appId && r.kind === 'stable');
      } else {
        const current = currentStable.get(appId);
        const record = current === undefined ? undefined : tokens.get(current);
        if (current !== undefined && record && !record.revoked && record.expiresAt - at >= rotateWithinMs) {
          return { access_token: current, expires_in: Math.floor((record.expiresAt - at) / 1000) };
        }
      }
      const issued = issue(appId, 'stable', at);
      currentStable.set(appId, issued.access_token);
      return issued;
    },
    classicToken(query) {
      stats.requests.classic += 1;
      const appId = authenticate(query.get('grant_type'), query.get('appid'), query.get('secret'));
      if (typeof appId !== 'string') return appId;
      return rotate(appId, 'classic');
    },
    issuePlatformToken: (appId, kind) => rotate(appId, kind),
    check(token) {
      if (token === null || token === '') return WECHAT_ERRORS.accessTokenMissing;
      const record = tokens.get(token);
      if (record === undefined || record.revoked) return WECHAT_ERRORS.invalidCredential;
      if (record.expiresAt <= now()) return WECHAT_ERRORS.accessTokenExpired;
      return { appId: record.appId };
    },
    register(appId, secret) {
      secrets.set(appId, secret);
    },
    invalidate(appId) {
      return revokeWhere((r) => r.appId === appId);
    },
  };
}
