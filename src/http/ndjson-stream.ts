import type { Request, Response } from 'express';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { errorBody } from './error-middleware';
import { unstorableInputError } from './input-guard';
import { ndjsonLines, type NdjsonLine } from './ndjson-lines';
import { loggableError } from '../loggable-error';

/**
 * Lines answered per round: at most this many valid lines are accepted in one round-trip, and results
 * (rejections included) are written out at least this often, so memory stays bounded whatever the mix.
 */
const CHUNK_LINES = 500;
/** Rejected lines written together when no valid line before them is waiting: they leave memory young. */
const REJECTIONS_PER_WRITE = 50;
/** Longest accepted line, in bytes; a longer one is reported and skipped without being buffered whole. */
const MAX_LINE_BYTES = 64 * 1024;

/** What one batch route does with its lines: parse each alone, accept a chunk of valid ones together. */
export interface NdjsonBatch<T> {
  /** The line's request, or throws an AppError (the line is rejected, the others go on). */
  parse(input: unknown): T;
  /** Accepts a chunk of parsed lines in one round-trip: per line, its answer fields, or why not. */
  accept(items: readonly T[]): Promise<(Record<string, unknown> | AppError)[]>;
}

type LineResult = Record<string, unknown> & { line: number };

/**
 * Answers an NDJSON body read as a stream with bounded memory (a chunk of lines at a time, with
 * backpressure on both sides). Each line is validated and accepted on its own — a bad line is reported
 * with its number and the good ones around it are accepted — and the answer streams one NDJSON result per
 * non-empty line, in line order (`{line, ok: true, …}` or `{line, ok: false, error}`), then a summary line.
 * The event loop is yielded between chunks, so a long body does not hold up other requests. A failure
 * mid-stream ends the answer with `{aborted: true, afterLine, error}`: the lines answered are committed.
 */
export async function streamNdjsonBatch<T>(
  batch: NdjsonBatch<T>,
  req: Request,
  res: Response,
  logger: Logger,
): Promise<void> {
  res.status(200).type('application/x-ndjson');
  /** Writes NDJSON lines in one chunk (one per result would cost a chunk header and a syscall each). */
  const write = async (...values: unknown[]) => {
    const text = values.map((v) => `${JSON.stringify(v)}\n`).join('');
    if (!res.write(text)) await new Promise((r) => res.once('drain', r));
  };
  let lineNo = 0;
  let accepted = 0;
  let rejected = 0;
  let pending: { line: number; item: T }[] = [];
  let results: LineResult[] = [];

  const reject = (line: number, err: AppError) => {
    rejected++;
    results.push({ line, ok: false, ...errorBody(err) });
  };

  const flush = async () => {
    if (pending.length > 0) {
      const outcomes = await batch.accept(pending.map((p) => p.item));
      outcomes.forEach((o, i) => {
        const line = pending[i].line;
        if (o instanceof AppError) return reject(line, o);
        accepted++;
        results.push({ line, ok: true, ...o });
      });
    }
    results.sort((a, b) => a.line - b.line);
    if (results.length > 0) await write(...results);
    pending = [];
    results = [];
    // Parsing and rejecting lines never waits on I/O: without this, other requests wait for the whole body.
    await new Promise((resolve) => setImmediate(resolve));
  };

  /** Validates one line: queues it for the next round, or rejects it. */
  const decideLine = (line: NdjsonLine): void => {
    if (line.tooLong) {
      return reject(
        lineNo,
        new AppError('line_too_long', `line exceeds ${MAX_LINE_BYTES} bytes`, { httpStatus: 413 }),
      );
    }
    if (line.text.trim() === '') return;
    let input: unknown;
    try {
      input = JSON.parse(line.text);
    } catch {
      return reject(
        lineNo,
        new AppError('malformed_json', 'the line is not valid JSON', { httpStatus: 400 }),
      );
    }
    // The same check express routes get: text Postgres cannot store would fail the whole chunk.
    const unstorable = unstorableInputError({ body: input });
    if (unstorable) return reject(lineNo, unstorable);
    try {
      pending.push({ line: lineNo, item: batch.parse(input) });
    } catch (err) {
      if (err instanceof AppError) return reject(lineNo, err);
      throw err;
    }
  };

  try {
    for await (const line of ndjsonLines(req as AsyncIterable<Buffer>, MAX_LINE_BYTES)) {
      lineNo++;
      decideLine(line);
      // Rejections with no valid line before them waiting for its round go out in small batches at once.
      const rejectionsReady = pending.length === 0 && results.length >= REJECTIONS_PER_WRITE;
      if (rejectionsReady || pending.length + results.length >= CHUNK_LINES) await flush();
    }
    await flush();
    await write({ summary: { lines: lineNo, accepted, rejected } });
  } catch (err) {
    // Lines already answered are committed; the client retries the rest (idempotency keys make it safe).
    logger.error({ err: loggableError(err), line: lineNo }, 'batch aborted');
    const appError =
      err instanceof AppError
        ? err
        : new AppError('batch_aborted', 'the batch stopped; lines not answered were not accepted', {
            httpStatus: 503,
          });
    await write({ aborted: true, afterLine: lineNo, ...errorBody(appError) }).catch(() => undefined);
  }
  res.end();
}
