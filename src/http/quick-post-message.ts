import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { QuickRoute } from './answer-first';
import { answeredError, errorBody, errorHeaders } from './error-middleware';
import { unstorableInputError } from './input-guard';
import { setNoSniff } from './no-sniff';
import { type ContextFor, scheduleOneMessage } from './post-message';
import type { RateLimiter } from './rate-limit';
import { giveRequestId } from './request-id';
import type { Principal } from '../access/principal';
import type { Authenticate } from './auth';
import { keyRefusal } from './key-access';
import type { V1Deps } from './v1-deps';

const PATH = '/v1/messages';
/** The content types taken here; body-parser reads both as UTF-8 JSON (others go to express). */
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8']);
const DIGITS = /^\d+$/;
/** body-parser's strict mode: the first character that is not JSON whitespace must open an object or array. */
// eslint-disable-next-line no-control-regex
const FIRST_CHARACTER = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/;

export interface QuickPostMessageDeps {
  readonly deps: V1Deps;
  readonly logger: Logger;
  readonly contextFor: ContextFor;
  /** The failed bearer tokens per address: the same limiter as express's `requireBearer`. */
  readonly failures: RateLimiter;
  readonly authenticate: Authenticate;
  readonly bodyLimitBytes: number;
}

/** The body as body-parser's JSON parser makes it (UTF-8, a leading BOM dropped, strict), or a 400. */
function parseJsonBody(raw: Buffer): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  const malformed = () =>
    new AppError('malformed_json', 'the request body is not valid JSON', { httpStatus: 400 });
  const first = FIRST_CHARACTER.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw malformed();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformed();
  }
}

/** The whole body (its length was checked against the limit before), or the 400 body-parser gives. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('aborted', () => reject(new AppError('bad_request', 'request aborted', { httpStatus: 400 })));
    req.once('error', (err) => reject(new AppError('bad_request', err.message, { httpStatus: 400 })));
  });
}

/** Answers `value` as express's `res.status(status).json(value)` does, after `headers`. */
function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  for (const [name, header] of Object.entries(headers)) res.setHeader(name, header);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text);
}

/**
 * `POST /v1/messages` answered without express, for the requests producers send: that exact path, no
 * query, a JSON content type, a declared length within the limit, no content or transfer encoding, an
 * accepted credential that may schedule, from an address not blocked. Any other request is left untouched (false) for express,
 * whose route (`postMessage`) answers it. Express's own work per request (req and res given its
 * prototypes, its router, body-parser's stream machinery) cost a request more than the rest of the api
 * did. What is answered here is what express answers: the same headers in the same order (nosniff, the
 * request id, JSON), body-parser's strict JSON parse, the input guard, the same handler and error answers.
 */
export function createQuickPostMessage(q: QuickPostMessageDeps): QuickRoute {
  /** The request's principal when it is taken here, else null. */
  const takes = (req: IncomingMessage): Principal | null => {
    if (req.method !== 'POST' || req.url !== PATH) return null;
    const { headers } = req;
    const type = headers['content-type'];
    if (type === undefined || !JSON_TYPES.has(type)) return null;
    if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return null;
    const length = headers['content-length'];
    if (length === undefined || !DIGITS.test(length) || Number(length) > q.bodyLimitBytes) return null;
    // A refused or blocked token, a key that may not schedule, keys not read yet: express answers them
    // (401, 429, 403, 503) and counts the refused.
    if (q.failures.blocked(req.socket.remoteAddress ?? 'unknown') !== null) return null;
    let principal: Principal | null;
    try {
      principal = q.authenticate(headers.authorization);
    } catch {
      return null;
    }
    return principal !== null && keyRefusal(principal, 'POST', PATH) === null ? principal : null;
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> => {
    setNoSniff(res);
    const requestId = giveRequestId(req, res);
    try {
      const body = parseJsonBody(await readBody(req));
      const unstorable = unstorableInputError({ body });
      if (unstorable) throw unstorable;
      const { status, view } = await scheduleOneMessage(q.deps, q.contextFor(principal), body, requestId);
      sendJson(res, status, view);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const appError = answeredError(err, q.logger, { path: PATH, requestId });
      sendJson(res, appError.httpStatus, errorBody(appError, requestId), errorHeaders(appError));
    }
  };

  return (req, res) => {
    const principal = takes(req);
    if (principal === null) return false;
    void answer(req, res, principal);
    return true;
  };
}
