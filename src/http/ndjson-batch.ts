import { StringDecoder } from 'node:string_decoder';
import type { Request, Response } from 'express';
import { AppError } from '../errors';
import { parseScheduleRequest, type ScheduleContext } from '../scheduling/schedule-request';
import { scheduleMessages } from '../scheduling/schedule-messages';
import type { NewMessage } from '../scheduling/message-store';
import type { V1Deps } from './v1-routes';
import { errorBody } from './error-middleware';

/** Lines validated and inserted per round-trip. */
const CHUNK_LINES = 500;
/** Chunks whose wake-ups may be publishing at once. */
const MAX_CHUNKS_PUBLISHING = 4;
/** Longest accepted line; a longer one is reported and skipped without being buffered whole. */
const MAX_LINE_BYTES = 64 * 1024;

type LineResult = Record<string, unknown> & { line: number };

/**
 * `POST /v1/messages/batch`: an NDJSON body, one create-message request per line, read as a stream with
 * bounded memory (a chunk of lines at a time, with backpressure on both sides). Each line is validated and
 * accepted on its own — a bad line is reported with its number and the good ones around it are accepted —
 * and the answer streams one NDJSON result per non-empty line, then a summary line.
 */
export async function handleNdjsonBatch(
  deps: V1Deps,
  context: () => ScheduleContext,
  req: Request,
  res: Response,
): Promise<void> {
  res.status(200).type('application/x-ndjson');
  const write = async (value: unknown) => {
    if (!res.write(`${JSON.stringify(value)}\n`)) await new Promise((r) => res.once('drain', r));
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
          dueAt: o.message.dueAt,
          created: o.created,
        });
      });
    }
    results.sort((a, b) => a.line - b.line);
    for (const r of results) await write(r);
    pending = [];
    results = [];
  };

  const handleLine = async (text: string, tooLong: boolean) => {
    lineNo++;
    if (tooLong)
      return reject(
        lineNo,
        new AppError('line_too_long', `line exceeds ${MAX_LINE_BYTES} bytes`, { httpStatus: 413 }),
      );
    if (text.trim() === '') return;
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      return reject(
        lineNo,
        new AppError('malformed_json', 'the line is not valid JSON', { httpStatus: 400 }),
      );
    }
    try {
      pending.push({
        line: lineNo,
        input: { ...parseScheduleRequest(input, context()), requestId: req.requestId },
      });
    } catch (err) {
      if (err instanceof AppError) return reject(lineNo, err);
      throw err;
    }
    if (pending.length >= CHUNK_LINES) await flush();
  };

  try {
    // A decoder, not chunk.toString(): a multi-byte character (Chinese text) may straddle two chunks.
    const decoder = new StringDecoder('utf8');
    let carry = '';
    let skipping = false;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      const parts = (carry + decoder.write(chunk)).split('\n');
      carry = parts.pop()!;
      for (const part of parts) {
        await handleLine(part, skipping);
        skipping = false;
      }
      if (Buffer.byteLength(carry) > MAX_LINE_BYTES) {
        skipping = true;
        carry = '';
      }
    }
    carry += decoder.end();
    if (carry !== '' || skipping) await handleLine(carry, skipping);
    await flush();
    await write({ summary: { lines: lineNo, accepted, rejected } });
  } catch (err) {
    // Lines already answered are committed; the client retries the rest (idempotency keys make it safe).
    deps.logger.error({ err: (err as Error).message, line: lineNo }, 'batch aborted');
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
