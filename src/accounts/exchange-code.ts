import { withTransaction } from '../db/pool';
import { recordChange, WECHAT_ACTOR } from '../store/audit-log';
import { AppError, ConflictError, ValidationError } from '../errors';
import { saveToken } from '../store/access-tokens';
import {
  type CodeExchange,
  findCodeExchange,
  lockCodeExchange,
  pruneCodeExchanges,
  saveCodeExchange,
} from '../store/code-exchanges';
import { upsertPlatformAccount } from '../store/platform';
import { callComponentApi } from '../wechat/component-api';
import { type ConnectDeps, sha256Hex } from './connect-account';
import { refreshTokenContext } from './platform-tokens';
import { accessTokenContext } from './sealed-kinds';
import { loggableError } from '../loggable-error';

/** The account an authorization connected. */
export interface ConnectedAccount {
  readonly appId: string;
  /** `created`: a new account; `updated`: an account authorizing again (enabled, new refresh token). */
  readonly outcome: 'created' | 'updated';
  /** The permission set ids it granted (func_info). */
  readonly permissions: readonly number[];
}

/** Who brought the code: the admin's browser at the callback, or WeChat's `authorized` / `updateauthorized` push. */
export type CodeSource = 'callback' | 'push';

/** api_query_auth's refusals, in words an admin can act on. */
const CODE_ERRORS: Readonly<Record<number, [string, string]>> = {
  61009: ['auth_code_invalid', 'the authorization code is unknown or was used already: authorize again'],
  61010: ['auth_code_expired', 'the authorization code expired: authorize again'],
};

/** Exchanges are kept a day: far longer than a code lives (10 minutes to an hour), so that a late comer finds them. */
const EXCHANGE_KEPT_S = 86_400;

/**
 * Exchanges an authorization code (`api_query_auth`) at most once across every process, whoever brings
 * it first: under an advisory lock on the code's SHA-256, a code exchanged before gives that exchange's
 * outcome again; otherwise WeChat is asked, and the account it names is created, or updated when it
 * authorizes again (refresh token sealed, permissions kept, the access token it came with cached), and
 * the outcome recorded by the code's hash. A code WeChat refuses (unknown, used, expired) is a 400 and
 * writes nothing; a code naming an own account's app id is a 409 that leaves the account alone (and so
 * for whoever comes second).
 */
export async function exchangeAuthorizationCode(
  deps: ConnectDeps,
  authCode: string,
  by: CodeSource,
): Promise<ConnectedAccount> {
  const codeSha256 = sha256Hex(authCode);
  let done: Exchanged;
  try {
    // Read first without the lock: the component token is fetched only when the code may need it.
    const found = await findCodeExchange(deps.pool, codeSha256);
    done = found ? { exchange: found, earlier: true } : await exchangeOnce(deps, authCode, codeSha256);
  } catch (err) {
    const refused = err instanceof AppError && err.httpStatus === 400;
    deps.metrics.authorizationCodes.inc({ by, result: refused ? 'refused' : 'failed' });
    throw err;
  }
  deps.metrics.authorizationCodes.inc({ by, result: done.earlier ? 'earlier' : 'exchanged' });
  const { appId, outcome, permissions } = done.exchange;
  if (outcome === 'own_account') {
    deps.logger.warn({ appId, by }, 'authorization of an own account’s app id left alone');
    throw new ConflictError('account_exists', `${appId} is an own account here; delete it first`);
  }
  // Whoever exchanged the code, this process sees the account as it now is before answering: the
  // other comer may not have re-read the accounts yet, or run in another process.
  await deps.accounts.refresh();
  return { appId, outcome, permissions };
}

/** An exchange, and whether it was made before this call. */
interface Exchanged {
  readonly exchange: CodeExchange;
  readonly earlier: boolean;
}

/** The exchange under the code's lock: a comer that waited finds the first one's outcome. */
async function exchangeOnce(deps: ConnectDeps, authCode: string, codeSha256: string): Promise<Exchanged> {
  const component = await deps.tokens.getToken(deps.componentKey);
  const done = await withTransaction(deps.pool, async (client) => {
    await lockCodeExchange(client, codeSha256);
    const earlier = await findCodeExchange(client, codeSha256);
    if (earlier) return { exchange: earlier, earlier: true, changed: false };
    const info = parseAuthorizationInfo(await queryAuth(deps, authCode, component));
    const outcome = await upsertPlatformAccount(client, {
      appId: info.appId,
      refreshTokenSealed: deps.box.seal(info.refreshToken, refreshTokenContext(info.appId)),
      funcIds: info.permissions,
      originalId: await originalIdOf(deps, info.appId, component),
    });
    if (outcome !== null) {
      const sealed = deps.box.seal(info.accessToken, accessTokenContext(info.appId));
      await saveToken(client, info.appId, sealed, info.expiresInS * 1000);
      await recordChange(client, WECHAT_ACTOR, {
        action: 'account.authorized',
        target: { type: 'account', id: info.appId },
        appId: info.appId,
        details: { outcome, permissions: [...info.permissions] },
      });
    }
    const exchange: CodeExchange = {
      codeSha256,
      appId: info.appId,
      outcome: outcome ?? 'own_account',
      permissions: info.permissions,
    };
    await saveCodeExchange(client, exchange);
    return { exchange, earlier: false, changed: outcome !== null };
  });
  if (done.changed) {
    const { appId, outcome, permissions } = done.exchange;
    deps.logger.info({ appId, outcome, permissions }, 'account connected');
  }
  await pruneCodeExchanges(deps.pool, EXCHANGE_KEPT_S);
  return { exchange: done.exchange, earlier: done.earlier };
}

/** Calls the component API `/cgi-bin/component/<name>` as this platform, with its component token. */
const askComponent = (deps: ConnectDeps, name: string, fields: Record<string, string>, component: string) =>
  callComponentApi(
    deps.api,
    `/cgi-bin/component/${name}`,
    { component_appid: deps.platform.componentAppId, ...fields },
    component,
  );

/** `api_query_auth`, its refusals of the code translated (reference/wechat-platform.md §1.5). */
async function queryAuth(deps: ConnectDeps, authCode: string, component: string): Promise<unknown> {
  try {
    const json = await askComponent(deps, 'api_query_auth', { authorization_code: authCode }, component);
    return json.authorization_info;
  } catch (err) {
    const errcode = ((err as AppError).details as { errcode?: number } | undefined)?.errcode;
    const known = errcode === undefined ? undefined : CODE_ERRORS[errcode];
    if (known) throw new AppError(known[0], known[1], { httpStatus: 400, details: { errcode } });
    throw err;
  }
}

/**
 * The account's original id (gh_…) from `api_get_authorizer_info` (reference/wechat-platform.md §1.8): the
 * ToUserName of its pushes. Null, logged, when WeChat does not answer it: the code is spent already, so
 * the connection goes on, and the account's pushes are checked by it from its next authorization.
 */
async function originalIdOf(deps: ConnectDeps, appId: string, component: string): Promise<string | null> {
  try {
    const json = await askComponent(deps, 'api_get_authorizer_info', { authorizer_appid: appId }, component);
    const userName = (json.authorizer_info as { user_name?: unknown } | undefined)?.user_name;
    if (typeof userName === 'string' && userName !== '') return userName;
    deps.logger.warn({ appId }, 'api_get_authorizer_info gave no user_name');
  } catch (err) {
    deps.logger.warn({ appId, err: loggableError(err) }, 'api_get_authorizer_info failed');
  }
  return null;
}

function parseAuthorizationInfo(value: unknown) {
  const i = (value ?? {}) as Record<string, unknown>;
  const funcs = Array.isArray(i.func_info)
    ? (i.func_info as { funcscope_category?: { id?: unknown } }[])
    : [];
  const info = {
    appId: i.authorizer_appid,
    accessToken: i.authorizer_access_token,
    expiresInS: i.expires_in,
    refreshToken: i.authorizer_refresh_token,
    permissions: funcs
      .map((f) => f.funcscope_category?.id)
      .filter((id): id is number => typeof id === 'number'),
  };
  if (
    typeof info.appId !== 'string' ||
    typeof info.accessToken !== 'string' ||
    typeof info.expiresInS !== 'number' ||
    typeof info.refreshToken !== 'string'
  ) {
    // WeChat leaves the tokens out when the account lacks API permissions (§1.5).
    throw new ValidationError('the authorization gave no API access: the account must grant the permissions');
  }
  return {
    ...info,
    appId: info.appId,
    accessToken: info.accessToken,
    expiresInS: info.expiresInS,
    refreshToken: info.refreshToken,
  };
}
