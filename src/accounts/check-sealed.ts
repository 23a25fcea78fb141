import type { Pool, PoolClient } from '../db/pool';
import { listSealed, type SealedValue } from '../store/sealed-values';
import { SEALED_KINDS, type SealedKind } from './sealed-kinds';
import { sealedKeyId, SecretKeyError, type SecretBox } from './secret-box';

/** A stored sealed value the configured keys do not open: what and where, never the value. */
export interface Unopenable {
  readonly kind: string;
  /** The app id of its row (`component:<id>` for the component's access token). */
  readonly appId: string;
  /** The key that sealed it; null when the stored text is not sealed at all. */
  readonly keyId: string | null;
  readonly problem: 'key_not_configured' | 'does_not_open' | 'not_sealed';
}

/** How many of the values that do not open an error lists by name (the count is always given). */
const LISTED = 10;

/** Opens `value` with the box, or says why it does not open. */
export function whyNotOpen(box: SecretBox, kind: SealedKind, value: SealedValue): Unopenable | null {
  const keyId = sealedKeyId(value.sealed);
  const at = { kind: kind.name, appId: value.rowKey, keyId };
  if (keyId === null) return { ...at, problem: 'not_sealed' };
  if (!box.hasKey(keyId)) return { ...at, problem: 'key_not_configured' };
  try {
    box.open(value.sealed, kind.context(value.rowKey));
    return null;
  } catch {
    return { ...at, problem: 'does_not_open' };
  }
}

/**
 * Every stored sealed value of the durable kinds (not the cached access tokens, which are fetched again
 * when they do not open) that the box's keys do not open: one query per kind.
 */
export async function findUnopenable(db: Pool | PoolClient, box: SecretBox): Promise<Unopenable[]> {
  const found: Unopenable[] = [];
  for (const kind of SEALED_KINDS.filter((k) => !k.cache)) {
    for (const value of await listSealed(db, kind.column)) {
      const problem = whyNotOpen(box, kind, value);
      if (problem) found.push(problem);
    }
  }
  return found;
}

const PROBLEM_TEXT: Record<Unopenable['problem'], (keyId: string | null) => string> = {
  key_not_configured: (id) => `sealed with key ${id}, not configured`,
  does_not_open: (id) => `does not open with key ${id}`,
  not_sealed: () => 'not a sealed value',
};

/**
 * Throws SecretKeyError when any stored sealed value does not open with the configured keys, naming each
 * (kind, app id, key id: never a value) and how to fix it. Run before anything is written at start-up.
 */
export async function assertSealedValuesOpen(db: Pool | PoolClient, box: SecretBox): Promise<void> {
  const found = await findUnopenable(db, box);
  if (found.length === 0) return;
  const listed = found
    .slice(0, LISTED)
    .map((u) => `${u.kind} of ${u.appId} (${PROBLEM_TEXT[u.problem](u.keyId)})`)
    .join('; ');
  const more = found.length > LISTED ? `; and ${found.length - LISTED} more` : '';
  const configured = box.keyId
    ? `ACCOUNTS_ENCRYPTION_KEY (key ${box.keyId}) and ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS`
    : 'no ACCOUNTS_ENCRYPTION_KEY';
  throw new SecretKeyError(
    `${found.length} sealed value(s) in the database do not open with ${configured}: ${listed}${more}. ` +
      'Set the key that sealed them in ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS (or as ACCOUNTS_ENCRYPTION_KEY), ' +
      'start, then run `npm run rotate-account-keys` to seal them again with the current key ' +
      '(docs/operations.md, "Rotating the encryption key").',
  );
}
