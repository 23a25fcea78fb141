import { withTransaction, type Pool } from '../db/pool';
import { discardToken } from '../store/access-tokens';
import { listSealed, replaceSealed } from '../store/sealed-values';
import { assertSealedValuesOpen, whyNotOpen } from './check-sealed';
import { SEALED_KINDS, type SealedKind } from './sealed-kinds';
import type { SecretBox } from './secret-box';

/** What rotation did to one kind of sealed value. */
export interface KindRotation {
  readonly kind: string;
  /** Values stored. */
  readonly read: number;
  /** Sealed again with the current key. */
  readonly resealed: number;
  /** Cached access tokens that opened with no configured key: deleted, to be fetched again. */
  readonly discarded: number;
  /** Changed by another writer between the read and the write (sealed with the current key by it). */
  readonly changedMeanwhile: number;
}

/** Values re-sealed per transaction: rows stay locked briefly, whatever the number of accounts. */
const CHUNK = 500;

/**
 * Seals again, with the current key, every stored sealed value of every kind (account secrets, refresh
 * tokens, the component ticket, authorization codes, cached access tokens) that an older key sealed.
 * First checks that every durable value opens, and writes nothing when one does not. Each value is
 * replaced only if it is still what was read (a PATCH or a newer push meanwhile wins), in transactions of
 * CHUNK values. Safe to run again: a second run re-seals nothing. Afterwards the older keys can leave
 * ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS.
 */
export async function rotateSealedValues(pool: Pool, box: SecretBox): Promise<KindRotation[]> {
  await assertSealedValuesOpen(pool, box);
  const report: KindRotation[] = [];
  for (const kind of SEALED_KINDS) report.push(await rotateKind(pool, box, kind));
  return report;
}

async function rotateKind(pool: Pool, box: SecretBox, kind: SealedKind): Promise<KindRotation> {
  const values = await listSealed(pool, kind.column);
  const stale = values.filter((v) => box.isStale(v.sealed));
  const unopenable = kind.cache ? stale.filter((v) => whyNotOpen(box, kind, v) !== null) : [];
  const openable = stale.filter((v) => !unopenable.includes(v));
  let resealed = 0;
  let discarded = 0;
  for (let i = 0; i < openable.length; i += CHUNK) {
    resealed += await withTransaction(pool, async (client) => {
      let n = 0;
      for (const value of openable.slice(i, i + CHUNK)) {
        const sealed = box.seal(
          box.open(value.sealed, kind.context(value.rowKey)),
          kind.context(value.rowKey),
        );
        if (await replaceSealed(client, kind.column, value, sealed)) n += 1;
      }
      return n;
    });
  }
  for (const value of unopenable) if (await discardToken(pool, value.rowKey, value.sealed)) discarded += 1;
  const changedMeanwhile = stale.length - resealed - discarded;
  return { kind: kind.name, read: values.length, resealed, discarded, changedMeanwhile };
}

/** One line per kind, for the command's output. */
export const describeRotation = (r: KindRotation): string =>
  `${r.kind}: ${r.resealed} of ${r.read} re-sealed` +
  (r.discarded ? `, ${r.discarded} discarded (a cache, fetched again)` : '') +
  (r.changedMeanwhile ? `, ${r.changedMeanwhile} changed meanwhile (already current)` : '');
