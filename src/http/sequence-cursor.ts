import { ValidationError } from '../errors';
import type { SequencePosition } from '../store/sequence-store';

const CURSOR = /^(\d{1,20})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** A page's end as `GET /v1/sequences` gives it (`next`): opaque to clients, base64url. */
export const sequenceCursor = (p: SequencePosition): string =>
  Buffer.from(`${p.createdUs}.${p.id}`).toString('base64url');

/** The position a `cursor` query parameter names; a cursor this service did not give is a 400 naming it. */
export function parseSequenceCursor(cursor: string): SequencePosition {
  const m = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!m) {
    throw new ValidationError('invalid query', [
      {
        path: 'query.cursor',
        message: 'is not a cursor this service gave (use the `next` of a page)',
        rule: { kind: 'unknown_cursor' },
      },
    ]);
  }
  return { createdUs: m[1], id: m[2] };
}
