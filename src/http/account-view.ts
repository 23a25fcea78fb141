import type { Account } from '../accounts/account';
import { missingPermissions } from '../accounts/permissions';
import type { AccountStatus, AccountView } from '../contract';

/** The path WeChat's console is given as the account's server URL (after this service's origin). */
export const webhookPath = (appId: string): string => `/wechat/${encodeURIComponent(appId)}`;

/** An account as the API answers it: never a secret, only whether each is set. */
export function accountView(
  a: Account,
  state: { paused: boolean; sentToday?: { custom: number; template: number } },
): AccountView {
  const { paused } = state;
  const status: AccountStatus =
    a.unauthorizedAt !== null ? 'unauthorized' : !a.enabled ? 'disabled' : paused ? 'paused' : 'active';
  return {
    appId: a.appId,
    name: a.name,
    kind: a.kind,
    enabled: a.enabled,
    status,
    pushMode: a.pushMode,
    webhook: a.kind === 'platform' || a.token !== null,
    webhookUrl:
      a.kind === 'platform' ? `/wechat/platform/${encodeURIComponent(a.appId)}` : webhookPath(a.appId),
    hasSecret: a.secret !== null,
    hasEncodingAESKey: a.encodingAESKey !== null,
    hasPreviousEncodingAESKey: a.previousEncodingAESKey !== null,
    policyName: typeof a.windowPolicyInput === 'string' ? a.windowPolicyInput : 'custom',
    windowPolicy: a.windowPolicy,
    sendRatePerSecond: a.sendRatePerSecond,
    atLeastOnce: a.atLeastOnce,
    frequencyCapPerDay: a.frequencyCapPerDay,
    timeZone: a.timeZone,
    quietHours: a.quietHours,
    sentToday: state.sentToday ?? { custom: 0, template: 0 },
    permissions: a.funcInfo === null ? null : [...a.funcInfo],
    missingPermissions: missingPermissions(a),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
