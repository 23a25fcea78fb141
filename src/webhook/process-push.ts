import type { Publisher } from '../broker/publisher';
import type { Config } from '../config';
import type { Pool } from '../db/pool';
import { recordInteraction, unsubscribeAndForget } from '../store/follower-store';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { appendCancellation } from '../store/ledger';
import type { NewMessage } from '../store/message-store';
import { listStalePushes, markPushProcessed, takeUnprocessedPush } from '../store/webhook-pushes';
import { scheduleMessages } from '../scheduling/schedule-messages';
import { enrollFollower } from '../sequences/enroll';
import { pushDedupeKey, toPush } from '../wechat/push';
import { interpretPush } from './interpret-push';

export interface ProcessDeps {
  readonly config: Config;
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * Does what a recorded push asks, once: in one transaction it takes the push (skipping one another
 * process is handling), records the interaction and resets the contact window, or handles the unfollow,
 * enrolls the follower in the sequences the push triggers, and marks the push processed. The steps are
 * scheduled in that transaction (`scheduleMessages`); their wake-ups are published after commit (the
 * outbox covers a crash in between).
 */
export async function processPush(deps: ProcessDeps, pushId: number): Promise<string | null> {
  let outcome: string | null = null;
  await scheduleMessages(deps, async (client) => {
    const row = await takeUnprocessedPush(client, pushId);
    if (!row) return [];
    const account = deps.config.wechatAccounts.find((a) => a.appId === row.appId);
    outcome = 'ignored';
    let scheduled: NewMessage[] = [];
    if (row.fields && account) {
      const push = toPush(row.fields);
      const meaning = interpretPush(push);
      const base = { appId: row.appId, openid: push.openid, at: row.receivedAt };
      if (meaning.unsubscribe) {
        await appendCancellation(client, {
          appId: row.appId,
          scope: 'follower',
          target: push.openid,
          reason: 'unsubscribed',
          actor: 'webhook',
        });
        const cancelled = await unsubscribeAndForget(client, base);
        deps.metrics.cancelled.inc({ scope: 'follower' });
        outcome = `unsubscribed:${cancelled}`;
      } else if (meaning.interaction) {
        const rule = account.windowPolicy ? account.windowPolicy[meaning.interaction] : null;
        await recordInteraction(client, { ...base, kind: meaning.interaction, detail: meaning.detail, rule });
        if (meaning.trigger) {
          scheduled = await enrollFollower(client, {
            ...base,
            event: meaning.trigger,
            pushKey: pushDedupeKey(push),
            requestId: row.requestId,
          });
        }
        outcome = `${meaning.interaction}:${scheduled.length}`;
      }
    }
    await markPushProcessed(client, pushId, outcome);
    return scheduled;
  });
  return outcome;
}

/** Pushes recorded but not processed after `olderThanMs` (a crash after answering WeChat): process them. */
export async function processStalePushes(
  deps: ProcessDeps,
  olderThanMs: number,
  limit: number,
): Promise<number> {
  const ids = await listStalePushes(deps.pool, olderThanMs, limit);
  for (const id of ids) await processPush(deps, id);
  return ids.length;
}
