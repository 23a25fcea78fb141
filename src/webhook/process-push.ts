import type { Publisher } from '../broker/publisher';
import type { Config } from '../config';
import type { Pool } from '../db/pool';
import { recordInteraction, unsubscribeAndForget } from '../followers/follower-store';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { appendCancellation } from '../store/ledger';
import type { NewMessage } from '../store/message-store';
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
    const { rows } = await client.query<{
      app_id: string;
      fields: Record<string, string> | null;
      received_at: Date;
      request_id: string | null;
    }>(
      `SELECT app_id, fields, received_at, request_id FROM webhook_pushes WHERE id = $1 AND processed_at IS NULL
       FOR UPDATE SKIP LOCKED`,
      [pushId],
    );
    const row = rows[0];
    if (!row) return [];
    const account = deps.config.wechatAccounts.find((a) => a.appId === row.app_id);
    outcome = 'ignored';
    let scheduled: NewMessage[] = [];
    if (row.fields && account) {
      const push = toPush(row.fields);
      const meaning = interpretPush(push);
      const base = { appId: row.app_id, openid: push.openid, at: row.received_at };
      if (meaning.unsubscribe) {
        await appendCancellation(client, {
          appId: row.app_id,
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
            requestId: row.request_id,
          });
        }
        outcome = `${meaning.interaction}:${scheduled.length}`;
      }
    }
    await client.query(`UPDATE webhook_pushes SET processed_at = now(), outcome = $2 WHERE id = $1`, [
      pushId,
      outcome,
    ]);
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
  const { rows } = await deps.pool.query<{ id: number }>(
    `SELECT id FROM webhook_pushes WHERE processed_at IS NULL AND received_at < now() - $1 * interval '1 millisecond'
     ORDER BY received_at LIMIT $2`,
    [olderThanMs, limit],
  );
  for (const r of rows) await processPush(deps, r.id);
  return rows.length;
}
