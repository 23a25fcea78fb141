import { NotFoundError } from '../errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path parameter naming a row by UUID, lower-cased; anything else names no such `what` (404). */
export function uuidParam(raw: string | string[] | undefined, what: string): string {
  const id = String(raw ?? '');
  if (!UUID.test(id)) throw new NotFoundError(`${what} ${id}`);
  return id.toLowerCase();
}
