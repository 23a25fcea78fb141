import { withTransaction, type Pool, type PoolClient } from '../db/pool';
import { ConflictError } from '../errors';
import type { Logger } from '../logger';
import {
  claimComponentPush,
  markAccountUnauthorized,
  pruneComponentPushes,
  saveAuthorization,
  saveComponentTicket,
} from '../store/platform';
import { recordChange, WECHAT_ACTOR } from '../store/audit-log';
import { cancelAccountMessages } from './cancel-account-messages';
import type { PlatformEvent } from './platform-event';
import type { AccountRegistry } from './registry';
import type { SecretBox } from './secret-box';

/** What taking a push of the authorization-event URL needs. */
export interface PlatformEventDeps {
  readonly pool: Pool;
  readonly box: SecretBox;
  readonly logger: Logger;
  /** Re-read when an account was disabled, so that this process stops at once (the others follow NOTIFY). */
  readonly accounts: AccountRegistry;
  readonly componentAppId: string;
  /** Pushes older than this are refused by their timestamp, so their signatures need not be kept longer. */
  readonly maxSkewS: number;
}

/** The ledger reason of the cancellation an unauthorized account leaves. */
export const ACCOUNT_UNAUTHORIZED = 'account_unauthorized';

/** Where a sealed platform credential belongs: a copy moved to another place does not open. */
export const ticketContext = (componentAppId: string) => `component ${componentAppId} verify ticket`;
export const codeContext = (authorizerAppId: string) => `authorizer ${authorizerAppId} authorization code`;

/** What taking the event changed: `kept` false when a later one of its kind was stored already. */
export interface TakenEvent {
  readonly kept: boolean;
  /** For `unauthorized`: the open messages the account's cancellation stopped; null when nothing was disabled. */
  readonly cancelled: number | null;
}

/**
 * Takes an authentic push of the authorization-event URL, in one transaction: claims its msg_signature
 * (409 `push_replayed`, nothing written, when it was taken before), then keeps the ticket sealed, or
 * records the authorization event (its code sealed), and on `unauthorized` disables the platform account
 * and cancels its open messages with one ledger row (scope `account`), after the claims in flight for
 * it finish — as deleting an account does.
 */
export async function takePlatformEvent(
  deps: PlatformEventDeps,
  msgSignature: string,
  event: PlatformEvent,
): Promise<TakenEvent> {
  const taken = await withTransaction(deps.pool, async (client) => {
    if (!(await claimComponentPush(client, msgSignature))) {
      throw new ConflictError('push_replayed', 'this push was taken already');
    }
    return apply(deps, client, event);
  });
  const appId = 'authorizerAppId' in event ? event.authorizerAppId : undefined;
  deps.logger.info({ infoType: event.infoType, appId, ...taken }, 'platform push taken');
  if (taken.cancelled !== null) await deps.accounts.refresh();
  await pruneComponentPushes(deps.pool, 3 * deps.maxSkewS);
  return taken;
}

async function apply(deps: PlatformEventDeps, client: PoolClient, event: PlatformEvent): Promise<TakenEvent> {
  const componentAppId = deps.componentAppId;
  switch (event.infoType) {
    case 'component_verify_ticket': {
      const ticketSealed = deps.box.seal(event.ticket, ticketContext(componentAppId));
      const kept = await saveComponentTicket(client, {
        componentAppId,
        ticketSealed,
        pushedAt: event.createTime,
      });
      return { kept, cancelled: null };
    }
    case 'authorized':
    case 'updateauthorized': {
      const kept = await saveAuthorization(client, {
        authorizerAppId: event.authorizerAppId,
        componentAppId,
        state: event.infoType,
        authorizationCodeSealed: deps.box.seal(event.authorizationCode, codeContext(event.authorizerAppId)),
        authorizationCodeExpiresAt: event.authorizationCodeExpiresAt,
        preAuthCode: event.preAuthCode,
        eventAt: event.createTime,
      });
      return { kept, cancelled: null };
    }
    case 'unauthorized':
      return unauthorize(client, componentAppId, event.authorizerAppId, event.createTime);
    case 'other':
      return { kept: false, cancelled: null };
  }
}

async function unauthorize(
  client: PoolClient,
  componentAppId: string,
  appId: string,
  eventAt: Date,
): Promise<TakenEvent> {
  const kept = await saveAuthorization(client, {
    authorizerAppId: appId,
    componentAppId,
    state: 'unauthorized',
    authorizationCodeSealed: null,
    authorizationCodeExpiresAt: null,
    preAuthCode: null,
    eventAt,
  });
  // An older revocation arriving after a newer authorization changes nothing.
  if (!kept) return { kept, cancelled: null };
  return { kept, cancelled: await revokeAuthorization(client, appId, 'revoked') };
}

/** The ledger's actor of the cancellation a lost authorization makes, by why it was lost. */
const LEDGER_ACTORS = { revoked: 'wechat:unauthorized', token_refused: 'wechat:token_refused' } as const;

/**
 * Disables a platform account whose authorization is gone (once: false when it was already, or is no
 * platform account — an own account with the same app id is not the platform's to disable) and cancels
 * its open messages with one ledger row, in the caller's transaction, with its audit entry. `cause`: the
 * account revoked it (WeChat's push), or WeChat refused its refresh token. Returns how many it stopped, or
 * null when nothing changed.
 */
export async function revokeAuthorization(
  client: PoolClient,
  appId: string,
  cause: keyof typeof LEDGER_ACTORS,
): Promise<number | null> {
  if (!(await markAccountUnauthorized(client, appId))) return null;
  const cancelled = await cancelAccountMessages(client, appId, ACCOUNT_UNAUTHORIZED, LEDGER_ACTORS[cause]);
  await recordChange(client, WECHAT_ACTOR, {
    action: 'account.unauthorized',
    target: { type: 'account', id: appId },
    appId,
    details: { cause, cancelled },
  });
  return cancelled;
}
