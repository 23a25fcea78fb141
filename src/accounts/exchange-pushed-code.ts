import { AppError } from '../errors';
import { retry } from '../retry';
import type { ConnectDeps } from './connect-account';
import { exchangeAuthorizationCode } from './exchange-code';
import type { PlatformEvent } from './platform-event';
import { loggableError } from '../loggable-error';

/** An `authorized` / `updateauthorized` push, with the authorization code it carries. */
export type PushedAuthorization = Extract<PlatformEvent, { readonly authorizationCode: string }>;

/** The waits before each retry, in ms: a few, growing, each only while the code still lives. */
const RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000];
/** A push without AuthorizationCodeExpiredTime: the code lives as the redirect's does (`expires_in=600`). */
const DEFAULT_CODE_LIFE_MS = 600_000;

/**
 * Exchanges the code of an `authorized` / `updateauthorized` push, after it was stored and answered, so
 * that an account whose admin closed the browser before the redirect is connected all the same, and an
 * update of its permission sets reaches it (there is no callback then). The callback may bring the same
 * code: whichever comes second reads the first one's outcome (`exchangeAuthorizationCode`). A failure
 * that may heal (network, WeChat busy, no component token yet) is retried after each of
 * RETRY_DELAYS_MS while the code lives and the process is not `stopping`; a code WeChat refuses, and an
 * own account's app id, are logged and left. Logs the account, never the code or a token; never rejects.
 */
export async function exchangePushedCode(
  deps: ConnectDeps,
  push: PushedAuthorization,
  stopping: AbortSignal,
): Promise<void> {
  const expiresAtMs =
    push.authorizationCodeExpiresAt?.getTime() ?? push.createTime.getTime() + DEFAULT_CODE_LIFE_MS;
  const about = { appId: push.authorizerAppId, infoType: push.infoType };
  try {
    const { outcome, permissions } = await retry(
      () => exchangeAuthorizationCode(deps, push.authorizationCode, 'push'),
      {
        attempts: RETRY_DELAYS_MS.length + 1,
        delayMs: (retry) => RETRY_DELAYS_MS[retry],
        retryable: (err, retry) =>
          (!(err instanceof AppError) || err.retryable) && Date.now() + RETRY_DELAYS_MS[retry] < expiresAtMs,
        onRetry: (err, _retry, delayMs) =>
          deps.logger.warn(
            { ...about, err: loggableError(err), retryInMs: delayMs },
            'pushed authorization code not exchanged yet',
          ),
        signal: stopping,
      },
    );
    deps.logger.info({ ...about, outcome, permissions }, 'pushed authorization code taken');
  } catch (err) {
    // Stopped while waiting: the callback, if it comes, still exchanges the code.
    if (stopping.aborted) return;
    deps.logger.warn(
      { ...about, err: loggableError(err), retryInMs: null },
      'pushed authorization code left',
    );
  }
}
