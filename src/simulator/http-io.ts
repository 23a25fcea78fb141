import type { IncomingMessage, ServerResponse } from 'node:http';

/** Larger bodies are refused with 413; WeChat's own limit is undocumented and far above any message. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the request body as UTF-8 text; null when it exceeds the limit (the caller answers 413) or the
 * client went away before sending all of it (the answer then goes nowhere).
 */
export async function readBody(req: IncomingMessage): Promise<string | null> {
  return (await readBytes(req, MAX_BODY_BYTES))?.toString('utf8') ?? null;
}

/** Reads the request body as bytes, up to `limit` (an upload's); null as for `readBody`. */
export function readBytes(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks, size)));
    // A client that goes away mid-body is not a simulator failure: there is just nobody to answer.
    req.on('close', () => {
      if (!req.complete) resolve(null);
    });
    req.on('error', () => resolve(null));
  });
}

/** Writes a JSON answer unless the client has gone away meanwhile. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The service-style error body of /__sim control routes. */
export function sendBadRequest(res: ServerResponse, message: string, details?: unknown): void {
  sendJson(res, 400, {
    error: { code: 'bad_request', message, ...(details === undefined ? {} : { details }) },
  });
}

/**
 * Timers of injected latency and hangs. Tracked so that `close()` can end them at once instead of
 * keeping the process (or a test) alive for their full length.
 */
export interface Pauses {
  /** Resolves after `ms`, or earlier when the client disconnects or the simulator closes. */
  wait(ms: number, res: ServerResponse): Promise<void>;
  /** Ends every pending wait now. */
  releaseAll(): void;
}

/** Creates an empty set of pauses. */
export function createPauses(): Pauses {
  const pending = new Set<() => void>();
  return {
    wait(ms, res) {
      if (ms <= 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          res.off('close', done);
          pending.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        res.on('close', done);
        pending.add(done);
      });
    },
    releaseAll() {
      for (const done of [...pending]) done();
    },
  };
}
