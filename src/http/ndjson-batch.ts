import type { Request, Response } from 'express';
import type { BatchAcceptedLine } from '../contract';
import { parseScheduleRequest } from '../scheduling/schedule-request';
import type { ContextFor } from './post-message';
import { scheduleMessages } from '../scheduling/schedule-messages';
import type { NewMessage } from '../store/message-store';
import { streamNdjsonBatch } from './ndjson-stream';
import type { V1Deps } from './v1-deps';

/** Chunks whose wake-ups may be publishing at once. */
const MAX_CHUNKS_PUBLISHING = 4;

/**
 * `POST /v1/messages/batch`: an NDJSON body, one create-message request per line (`streamNdjsonBatch`),
 * each chunk of valid lines inserted in one round-trip. The stream is paced by the broker: at most a few
 * chunks' wake-ups are publishing at once, never a pile in memory.
 */
export async function handleNdjsonBatch(
  deps: V1Deps,
  contextFor: ContextFor,
  req: Request,
  res: Response,
): Promise<void> {
  const dispatching = new Set<Promise<unknown>>();
  const trackDispatch = (work: Promise<unknown>) => {
    const done = work.finally(() => dispatching.delete(done));
    dispatching.add(done);
    deps.track(done);
  };
  await streamNdjsonBatch<NewMessage>(
    {
      parse: (input) => ({
        ...parseScheduleRequest(input, contextFor(req.principal)),
        requestId: req.requestId,
      }),
      async accept(messages) {
        const outcomes = await scheduleMessages({ ...deps, track: trackDispatch }, messages);
        while (dispatching.size >= MAX_CHUNKS_PUBLISHING) await Promise.race(dispatching);
        return outcomes.map((o) =>
          o.ok
            ? ({
                id: o.message.id,
                status: o.message.status,
                dueAt: o.message.dueAt.toISOString(),
                created: o.created,
              } satisfies Omit<BatchAcceptedLine, 'line' | 'ok'>)
            : o.error,
        );
      },
    },
    req,
    res,
    deps.logger,
  );
}
