import type { PoolClient } from '../db/pool';
import { recordNoticeAnswers, recordNoticeResult } from '../store/notice-acceptances';
import type { PushMeaning } from './interpret-push';

/** A subscription-notice push of one follower, as read. */
export interface NoticePush {
  readonly appId: string;
  readonly openid: string;
  readonly meaning: Pick<PushMeaning, 'noticeAnswers' | 'noticeResults'>;
}

/**
 * Records subscription-notice pushes (distinct followers): the answers of popups and changes, and the
 * delivery results of sent events on the notices they report. Returns each push's outcome, in order:
 * `notice:<answers>` or `notice_result:<notices matched>`.
 */
export async function recordNoticePushes(
  client: PoolClient,
  pushes: readonly NoticePush[],
): Promise<string[]> {
  await recordNoticeAnswers(
    client,
    pushes.flatMap(({ appId, openid, meaning }) =>
      meaning.noticeAnswers.map((a) => ({ appId, openid, ...a })),
    ),
  );
  const outcomes: string[] = [];
  for (const { appId, openid, meaning } of pushes) {
    if (meaning.noticeAnswers.length > 0) {
      outcomes.push(`notice:${meaning.noticeAnswers.length}`);
      continue;
    }
    let matched = 0;
    for (const r of meaning.noticeResults)
      if (await recordNoticeResult(client, { appId, openid, ...r })) matched++;
    outcomes.push(`notice_result:${matched}`);
  }
  return outcomes;
}
