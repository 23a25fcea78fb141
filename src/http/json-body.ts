import { ValidationError } from '../errors';

/** The parsed JSON body; absent when the client did not send `Content-Type: application/json`. */
export function jsonBody(body: unknown): unknown {
  if (body === undefined) {
    throw new ValidationError('the body must be a JSON object sent with Content-Type: application/json');
  }
  return body;
}
