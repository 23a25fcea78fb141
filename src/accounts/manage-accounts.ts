import { withTransaction, type Pool } from '../db/pool';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors';
import type { AccountCreate, AccountPatch } from '../contract';
import {
  deleteAccount,
  findAccount,
  insertAccount,
  updateAccount,
  type StoredAccountChanges,
} from '../store/accounts';
import { type Account, resealStale, sealAllSecrets, sealSecrets, SECRET_FIELDS } from './account';
import { archiveAccountSequences } from '../store/archive-account-sequences';
import { cancelAccountMessages } from './cancel-account-messages';
import { API_ACTOR } from '../store/ledger';
import type { AccountRegistry } from './registry';
import type { SecretBox } from './secret-box';
import { type Actor, recordChange } from '../store/audit-log';

/** What the account use cases need. */
export interface ManageDeps {
  readonly pool: Pool;
  readonly box: SecretBox;
  /** Re-read after each change, so that this process answers with what it wrote. */
  readonly accounts: AccountRegistry;
}

/** The ledger reason of the cancellation a deleted account leaves. */
export const ACCOUNT_DELETED = 'account_deleted';

function assertCanSeal(box: SecretBox): void {
  if (box.keyId === null) {
    throw new AppError(
      'encryption_key_missing',
      'ACCOUNTS_ENCRYPTION_KEY is not set on this server: secrets cannot be stored',
      {
        httpStatus: 503,
      },
    );
  }
}

async function reread(deps: ManageDeps, appId: string): Promise<Account> {
  await deps.accounts.refresh();
  const account = deps.accounts.get(appId);
  if (!account) throw new NotFoundError(`account ${appId}`);
  return account;
}

/** Creates an own account; 409 when the app id exists (nothing written). `by`: who, for the audit log. */
export async function createAccount(deps: ManageDeps, input: AccountCreate, by: Actor): Promise<Account> {
  assertCanSeal(deps.box);
  const { secret, token, encodingAESKey, previousEncodingAESKey, ...fields } = input;
  const secrets = { secret, token, encodingAESKey, previousEncodingAESKey };
  await withTransaction(deps.pool, async (client) => {
    const inserted = await insertAccount(client, {
      ...fields,
      kind: 'own',
      ...sealAllSecrets(deps.box, input.appId, secrets),
    });
    if (!inserted) throw new ConflictError('account_exists', `account ${input.appId} exists already`);
    await recordChange(client, by, {
      action: 'account.created',
      target: { type: 'account', id: input.appId },
      appId: input.appId,
      details: { name: input.name ?? null },
    });
  });
  return reread(deps, input.appId);
}

/**
 * Changes the given fields. A secret given a value replaces it, null clears it; every other secret an
 * older key sealed is sealed again with the current key. Refuses (400, nothing written) a result whose
 * push mode needs an EncodingAESKey it would not have.
 */
export async function patchAccount(
  deps: ManageDeps,
  appId: string,
  patch: AccountPatch,
  by: Actor,
): Promise<Account> {
  const { secret, token, encodingAESKey, previousEncodingAESKey, ...fields } = patch;
  const secrets = { secret, token, encodingAESKey, previousEncodingAESKey };
  if (SECRET_FIELDS.some((f) => typeof secrets[f] === 'string')) assertCanSeal(deps.box);
  await withTransaction(deps.pool, async (client) => {
    const stored = await findAccount(client, appId, { lock: true });
    if (!stored) throw new NotFoundError(`account ${appId}`);
    const hasKey =
      encodingAESKey === undefined ? stored.encodingAESKeySealed !== null : encodingAESKey !== null;
    // A platform account's pushes are decrypted with the platform's key, not one of its own.
    if (stored.kind === 'own' && (fields.pushMode ?? stored.pushMode) !== 'plaintext' && !hasKey) {
      throw new ValidationError('invalid account', [
        {
          path: 'encodingAESKey',
          message: 'pushMode compatible or safe needs an encodingAESKey',
          rule: { kind: 'needs_aes_key' },
        },
      ]);
    }
    const changes: StoredAccountChanges = {
      ...(deps.box.keyId === null ? {} : resealStale(deps.box, stored)),
      ...fields,
      ...sealSecrets(deps.box, appId, secrets),
    };
    await updateAccount(client, appId, changes);
    // The fields the request named (a secret's name, never its value).
    await recordChange(client, by, {
      action: 'account.updated',
      target: { type: 'account', id: appId },
      appId,
      details: { fields: Object.keys(patch).sort() },
    });
  });
  return reread(deps, appId);
}

/**
 * Deletes the account: its open messages are cancelled by one ledger row (scope `account`), after the
 * claims in flight for it finish, its sequences are archived (none enrolls or sends again, and the list
 * no longer shows them running), then the account row goes — all in one transaction; its pushes are
 * refused from then on. Returns how many open messages the cancellation stopped and how many sequences it
 * archived.
 */
export async function removeAccount(
  deps: ManageDeps,
  appId: string,
  by: Actor,
): Promise<{ cancelled: number; archivedSequences: number }> {
  const removed = await withTransaction(deps.pool, async (client) => {
    const stored = await findAccount(client, appId, { lock: true });
    if (!stored) throw new NotFoundError(`account ${appId}`);
    const cancelled = await cancelAccountMessages(client, appId, ACCOUNT_DELETED, API_ACTOR);
    const archivedSequences = await archiveAccountSequences(client, appId);
    await deleteAccount(client, appId);
    await recordChange(client, by, {
      action: 'account.deleted',
      target: { type: 'account', id: appId },
      appId,
      details: { name: stored.name, cancelled, archivedSequences },
    });
    return { cancelled, archivedSequences };
  });
  await deps.accounts.refresh();
  return removed;
}
