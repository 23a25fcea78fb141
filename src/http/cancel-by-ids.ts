import { cancelByIdsSchema, type CancelByIdsView } from '../contract';
import { cancelMessages } from '../scheduling/cancel';
import { parseInput } from '../validation';
import type { V1Deps } from './v1-deps';

/** The fields of a cancellation by target, refused next to `ids` with this message. */
const NOT_WITH_IDS = 'give ids, or appId with cancelKey or openid, not both';
const TARGET_FIELDS = { appId: NOT_WITH_IDS, cancelKey: NOT_WITH_IDS, openid: NOT_WITH_IDS };
/** A list of 10,000 bad ids would make as many details; the answer names the first few. */
const MAX_DETAILS = 20;

/**
 * `POST /v1/cancellations {ids, reason}`: parses the body, cancels, and counts the results by outcome. With
 * `mayUseAccount` (a key's), the messages of other accounts read `not_found`.
 */
export async function cancelByIds(
  deps: V1Deps,
  body: unknown,
  actor: string,
  mayUseAccount?: (appId: string) => boolean,
): Promise<CancelByIdsView> {
  const parsed = parseInput(cancelByIdsSchema, body, 'invalid cancellation', {
    unknownFields: TARGET_FIELDS,
    maxDetails: MAX_DETAILS,
  });
  const results = await cancelMessages(deps.pool, { ...parsed, actor, mayUseAccount });
  const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
  const view: CancelByIdsView = {
    cancelled: count('cancelled'),
    alreadyCancelled: count('already_cancelled'),
    notCancellable: count('not_cancellable'),
    notFound: count('not_found'),
    results,
  };
  deps.metrics.cancelled.inc({ scope: 'message' }, view.cancelled);
  return view;
}
