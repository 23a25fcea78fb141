import type { Publisher } from '../broker/publisher';
import type { Accounts } from '../accounts/registry';
import type { Pool, PoolClient } from '../db/pool';
import { recordInteractions, unsubscribeAndForget } from '../store/follower-store';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { appendCancellation } from '../store/ledger';
import type { NewMessage } from '../store/message-store';
import {
  listStalePushes,
  markPushesProcessed,
  type StoredPush,
  takeUnprocessedPushes,
} from '../store/webhook-pushes';
import { scheduleMessages } from '../scheduling/schedule-messages';
import { type Enrollee, enrollFollowers } from '../sequences/enroll';
import { type Push, pushDedupeKey, toPush } from '../wechat/push';
import { interpretPush, type PushMeaning } from './interpret-push';

export interface ProcessDeps {
  /** The accounts: a push of an account deleted meanwhile is ignored. */
  readonly accounts: Accounts;
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** A taken push with what it means; `push` null when there is nothing to do (erased, unknown account). */
interface Taken {
  readonly row: StoredPush;
  readonly push: Push | null;
  readonly meaning: PushMeaning | null;
}

/**
 * Does what recorded pushes ask, each once, in one transaction per round: it takes them (skipping those
 * processed already or held by another process), records the interactions and resets the contact windows,
 * or handles the unfollows, enrolls the followers in the sequences the pushes trigger, and marks the pushes
 * processed — all or nothing. A round holds one push per follower; a follower's later pushes go in the
 * next rounds, in the order they were recorded (so an unfollow after a follow also erases the steps the
 * follow scheduled). The steps are scheduled in the round's transaction (`scheduleMessages`); their
 * wake-ups are published after commit (the outbox covers a crash in between). Returns each push's outcome.
 */
export async function processPushes(
  deps: ProcessDeps,
  pushIds: readonly number[],
): Promise<Map<number, string | null>> {
  const outcomes = new Map<number, string | null>();
  let remaining = pushIds;
  while (remaining.length > 0) {
    let later: number[] = [];
    await scheduleMessages(deps, async (client) => {
      const rows = await takeUnprocessedPushes(client, remaining);
      const [round = [], ...rest] = rounds(rows.map((row) => read(deps.accounts, row)));
      later = rest.flat().map((t) => t.row.id);
      const scheduled = await applyRound(deps, client, round, outcomes);
      if (round.length > 0)
        await markPushesProcessed(
          client,
          round.map((t) => ({ id: t.row.id, outcome: outcomes.get(t.row.id) ?? null })),
        );
      return scheduled;
    });
    remaining = later;
  }
  return outcomes;
}

function read(accounts: Accounts, row: StoredPush): Taken {
  const account = accounts.get(row.appId);
  if (!row.fields || !account) return { row, push: null, meaning: null };
  const push = toPush(row.fields);
  return { row, push, meaning: interpretPush(push) };
}

/** Splits pushes (in id order) into rounds in which no follower appears twice, keeping each one's order. */
function rounds(taken: readonly Taken[]): Taken[][] {
  const out: Taken[][] = [];
  const seen = new Map<string, number>();
  for (const t of taken) {
    const key = t.push ? `${t.row.appId}\u0000${t.push.openid}` : `#${t.row.id}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    (out[n] ??= []).push(t);
  }
  return out;
}

/** Applies one round (distinct followers): unfollows one by one, interactions and enrollments together. */
async function applyRound(
  deps: ProcessDeps,
  client: PoolClient,
  round: readonly Taken[],
  outcomes: Map<number, string | null>,
): Promise<NewMessage[]> {
  const interacting: { t: Taken; push: Push; meaning: PushMeaning }[] = [];
  for (const t of round) {
    const { row, push, meaning } = t;
    if (!push || !meaning || (!meaning.unsubscribe && !meaning.interaction)) {
      outcomes.set(row.id, 'ignored');
      continue;
    }
    if (!meaning.unsubscribe) {
      interacting.push({ t, push, meaning });
      continue;
    }
    await appendCancellation(client, {
      appId: row.appId,
      scope: 'follower',
      target: push.openid,
      reason: 'unsubscribed',
      actor: 'webhook',
    });
    const cancelled = await unsubscribeAndForget(client, {
      appId: row.appId,
      openid: push.openid,
      at: row.receivedAt,
    });
    deps.metrics.cancelled.inc({ scope: 'follower' });
    outcomes.set(row.id, `unsubscribed:${cancelled}`);
  }
  const policyOf = (appId: string) => deps.accounts.get(appId)?.windowPolicy ?? null;
  await recordInteractions(
    client,
    interacting.map(({ t, push, meaning }) => ({
      appId: t.row.appId,
      openid: push.openid,
      kind: meaning.interaction!,
      detail: meaning.detail,
      at: t.row.receivedAt,
      rule: policyOf(t.row.appId)?.[meaning.interaction!] ?? null,
    })),
  );
  const triggered = interacting.filter(({ meaning }) => meaning.trigger);
  const steps = await enrollFollowers(
    client,
    triggered.map(({ t, push, meaning }): Enrollee => ({
      appId: t.row.appId,
      openid: push.openid,
      event: meaning.trigger!,
      pushKey: pushDedupeKey(push),
      at: t.row.receivedAt,
      requestId: t.row.requestId,
    })),
  );
  const stepsOf = new Map(triggered.map(({ t }, i) => [t.row.id, steps[i]]));
  for (const { t, meaning } of interacting)
    outcomes.set(t.row.id, `${meaning.interaction}:${stepsOf.get(t.row.id)?.length ?? 0}`);
  return steps.flat();
}

/** Pushes recorded but not processed after `olderThanMs` (a crash after answering WeChat): process them. */
export async function processStalePushes(
  deps: ProcessDeps,
  olderThanMs: number,
  limit: number,
): Promise<number> {
  const ids = await listStalePushes(deps.pool, olderThanMs, limit);
  if (ids.length === 0) return 0;
  try {
    await processPushes(deps, ids);
  } catch (err) {
    // One push that cannot be processed must not hold back the others: each alone, the failures logged.
    deps.logger.warn({ err: (err as Error).message }, 'stale pushes failed together; processing each alone');
    for (const id of ids)
      await processPushes(deps, [id]).catch((e: Error) =>
        deps.logger.error({ pushId: id, err: e.message }, 'push processing failed; retried later'),
      );
  }
  return ids.length;
}
