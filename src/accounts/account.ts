import type { WindowPolicyInput } from '../contract';
import type { StoredAccount, StoredAccountChanges } from '../store/accounts';
import { resolveWindowPolicy, type WindowPolicy } from '../wechat/window-policy';
import type { SecretBox } from './secret-box';

/** The fields an account has as stored and as used alike (the secrets and the policy differ). */
type PlainFields =
  | 'appId'
  | 'name'
  | 'kind'
  | 'enabled'
  | 'pushMode'
  | 'sendRatePerSecond'
  | 'atLeastOnce'
  | 'frequencyCapPerDay'
  | 'timeZone'
  | 'quietHours'
  | 'unauthorizedAt'
  | 'funcInfo'
  | 'originalId'
  | 'createdAt'
  | 'updatedAt';

/** An account as every process uses it: secrets opened (in memory only), window policy resolved. */
export interface Account extends Pick<StoredAccount, PlainFields> {
  /** The AppSecret. Secret: never logged, never answered. */
  readonly secret: string | null;
  /** The push Token of WeChat's console; without it the webhook refuses the account. Secret. */
  readonly token: string | null;
  readonly encodingAESKey: string | null;
  readonly previousEncodingAESKey: string | null;
  /** The policy as written (a preset name or custom rules). */
  readonly windowPolicyInput: WindowPolicyInput;
  /** The rules it stands for; null when the window is not checked here. */
  readonly windowPolicy: WindowPolicy;
}

/** The write-only fields, each stored sealed in its own column. */
export const SECRET_FIELDS = ['secret', 'token', 'encodingAESKey', 'previousEncodingAESKey'] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];
export type Secrets = Record<SecretField, string | null>;

const SEALED = {
  secret: 'secretSealed',
  token: 'tokenSealed',
  encodingAESKey: 'encodingAESKeySealed',
  previousEncodingAESKey: 'previousEncodingAESKeySealed',
} as const satisfies Record<SecretField, keyof StoredAccount>;

/** What binds a sealed secret to its account and field. */
export const secretContext = (appId: string, field: SecretField) => `account ${appId} ${field}`;

/** Opens a stored account's secrets; throws SecretKeyError naming the account and field, never a secret. */
export function openAccount(box: SecretBox, stored: StoredAccount): Account {
  const open = (field: SecretField): string | null => {
    const sealed = stored[SEALED[field]];
    return sealed === null ? null : box.open(sealed, secretContext(stored.appId, field));
  };
  return {
    appId: stored.appId,
    name: stored.name,
    kind: stored.kind,
    enabled: stored.enabled,
    secret: open('secret'),
    token: open('token'),
    encodingAESKey: open('encodingAESKey'),
    previousEncodingAESKey: open('previousEncodingAESKey'),
    pushMode: stored.pushMode,
    windowPolicyInput: stored.windowPolicy,
    windowPolicy: resolveWindowPolicy(stored.windowPolicy),
    sendRatePerSecond: stored.sendRatePerSecond,
    atLeastOnce: stored.atLeastOnce,
    frequencyCapPerDay: stored.frequencyCapPerDay,
    timeZone: stored.timeZone,
    quietHours: stored.quietHours,
    unauthorizedAt: stored.unauthorizedAt,
    funcInfo: stored.funcInfo,
    originalId: stored.originalId,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  };
}

/** The sealed columns for the given secrets (null stays null: a cleared field). */
export function sealSecrets(
  box: SecretBox,
  appId: string,
  secrets: Partial<Secrets>,
): Pick<StoredAccountChanges, (typeof SEALED)[SecretField]> {
  const out: Partial<Record<(typeof SEALED)[SecretField], string | null>> = {};
  for (const field of SECRET_FIELDS) {
    const value = secrets[field];
    if (value !== undefined)
      out[SEALED[field]] = value === null ? null : box.seal(value, secretContext(appId, field));
  }
  return out;
}

/** The sealed columns of `stored` that an older key sealed, sealed again with the current key. */
export function resealStale(box: SecretBox, stored: StoredAccount): StoredAccountChanges {
  const stale: Partial<Secrets> = {};
  for (const field of SECRET_FIELDS) {
    const sealed = stored[SEALED[field]];
    if (sealed !== null && box.isStale(sealed))
      stale[field] = box.open(sealed, secretContext(stored.appId, field));
  }
  return sealSecrets(box, stored.appId, stale);
}

/** All four sealed columns, for a new account. */
export function sealAllSecrets(
  box: SecretBox,
  appId: string,
  secrets: Secrets,
): Required<ReturnType<typeof sealSecrets>> {
  return sealSecrets(box, appId, secrets) as Required<ReturnType<typeof sealSecrets>>;
}
