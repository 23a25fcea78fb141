import type { Request, Response } from 'express';
import type { BatchAbortedLine, BatchAcceptedLine, BatchRejectedLine, BatchSummaryLine } from '../contract';
import { loggableError } from '../db/errors';
import { AppError } from '../errors';
import { parseScheduleRequest, type ScheduleContext } from '../scheduling/schedule-request';
import { scheduleMessages } from '../scheduling/schedule-messages';
import type { NewMessage } from '../store/message-store';
import type { V1Deps } from './v1-deps';
import { errorBody } from './error-middleware';
import { unstorableInputError } from './input-guard';
import { ndjsonLines, type NdjsonLine } from './ndjson-lines';

/**
 * Lines answered per round: at most this many valid lines are inserted in one round-trip, and results
 * (rejections included) are written out at least this often, so memory stays bounded whatever the mix.
 */
const CHUNK_LINES = 500;
/** Rejected lines written together when no valid line before them is waiting: they leave memory young. */
const REJECTIONS_PER_WRITE = 50;
/** Chunks whose wake-ups may be publishing at once. */
const MAX_CHUNKS_PUBLISHING = 4;
/** Longest accepted line, in bytes; a longer one is reported and skipped without being buffered whole. */
const MAX_LINE_BYTES = 64 * 1024;

type LineResult = BatchAcceptedLine | BatchRejectedLine;

/**
 * `POST /v1/messages/batch`: an NDJSON body, one create-message request per line, read as a stream with
 * bounded memory (a chunk of lines at a time, with backpressure on both sides). Each line is validated and
 * accepted on its own — a bad line is reported with its number and the good ones around it are accepted —
 * and the answer streams one NDJSON result per non-empty line, in line order, then a summary line. The
 * event loop is yielded between chunks, so a long body does not hold up other requests.
 */
export async function handleNdjsonBatch(
  deps: V1Deps,
  context: () => ScheduleContext,
  req: Request,
  res: Response,
): Promise<void> {
  res.status(200).type('application/x-ndjson');
  /** Writes NDJSON lines in one chunk (one per result would cost a chunk header and a syscall each). */
  const write = async (...values: (LineResult | BatchSummaryLine | BatchAbortedLine)[]) => {
    const text = values.map((v) => `${JSON.stringify(v)}\n`).join('');
    if (!res.write(text)) await new Promise((r) => res.once('drain', r));
  };
  let lineNo = 0;
  let accepted = 0;
  let rejected = 0;
  let pending: { line: number; input: NewMessage }[] = [];
  const dispatching = new Set<Promise<unknown>>();
  const trackDispatch = (work: Promise<unknown>) => {
    const done = work.finally(() => dispatching.delete(done));
    dispatching.add(done);
    deps.track(done);
  };
  let results: LineResult[] = [];

  const reject = (line: number, err: AppError) => {
    rejected++;
    results.push({ line, ok: false, ...errorBody(err) });
  };

  const flush = async () => {
    if (pending.length > 0) {
      const outcomes = await scheduleMessages(
        { ...deps, track: trackDispatch },
        pending.map((p) => p.input),
      );
      // Pace the stream by the broker: at most a few chunks' publishes in flight, never a pile in memory.
      while (dispatching.size >= MAX_CHUNKS_PUBLISHING) await Promise.race(dispatching);
      outcomes.forEach((o, i) => {
        const line = pending[i].line;
        if (!o.ok) return reject(line, o.error);
        accepted++;
        results.push({
          line,
          ok: true,
          id: o.message.id,
          status: o.message.status,
          dueAt: o.message.dueAt.toISOString(),
          created: o.created,
        });
      });
    }
    results.sort((a, b) => a.line - b.line);
    if (results.length > 0) await write(...results);
    pending = [];
    results = [];
    // Parsing and rejecting lines never waits on I/O: without this, other requests wait for the whole body.
    await new Promise((resolve) => setImmediate(resolve));
  };

  /** Validates one line: queues it for the next insert, or rejects it. */
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
    // The same check express routes get: text Postgres cannot store would fail the whole chunk's insert.
    const unstorable = unstorableInputError({ body: input });
    if (unstorable) return reject(lineNo, unstorable);
    try {
      pending.push({
        line: lineNo,
        input: { ...parseScheduleRequest(input, context()), requestId: req.requestId },
      });
    } catch (err) {
      if (err instanceof AppError) return reject(lineNo, err);
      throw err;
    }
  };

  try {
    for await (const line of ndjsonLines(req as AsyncIterable<Buffer>, MAX_LINE_BYTES)) {
      lineNo++;
      decideLine(line);
      // Rejections with no valid line before them waiting for its insert go out in small batches at once.
      const rejectionsReady = pending.length === 0 && results.length >= REJECTIONS_PER_WRITE;
      if (rejectionsReady || pending.length + results.length >= CHUNK_LINES) await flush();
    }
    await flush();
    await write({ summary: { lines: lineNo, accepted, rejected } });
  } catch (err) {
    // Lines already answered are committed; the client retries the rest (idempotency keys make it safe).
    deps.logger.error(
      { err: err instanceof AppError ? err.message : loggableError(err), line: lineNo },
      'batch aborted',
    );
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
