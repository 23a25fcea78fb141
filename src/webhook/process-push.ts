import type { Publisher } from '../broker/publisher';
import type { Accounts } from '../accounts/registry';
import { type Pool, type PoolClient, withTransaction } from '../db/pool';
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
import { insertScheduled, publishScheduled } from '../scheduling/schedule-messages';
import { type Enrollee, enrollFollowers } from '../sequences/enroll';
import { applyExits, type ExitInput } from '../sequences/apply-exits';
import { meetWaits } from '../sequences/meet-waits';
import { moveLastChances } from '../sequences/move-last-chances';
import { recordConversions } from '../sequences/record-conversions';
import { type Push, pushDedupeKey, toPush } from '../wechat/push';
import { interpretPush, type PushMeaning } from './interpret-push';
import { recordNoticePushes } from './record-notice-pushes';
import { recordTemplateReport } from '../store/template-reports';
import { listOpenLastChances } from '../store/last-chance-steps';
import { loggableError } from '../loggable-error';

export interface ProcessDeps {
  /** The accounts: a push of an account deleted meanwhile is ignored. */
  readonly accounts: Accounts;
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** Who the ledger names as having cancelled what a push ends. */
const ACTOR = 'webhook';

/**
 * A push recorded this long ago and still not processed is taken by the worker's sweep of stale pushes.
 * A delivery report that finds no sent message while younger than this is left for that sweep: WeChat
 * may push it before the worker has recorded the send's msgid (the send is answered first), and by the
 * sweep the send is recorded. A report still unmatched then (a template another system sent) is done.
 */
export const STALE_PUSH_AFTER_MS = 10_000;

/** A taken push with what it means; `push` null when there is nothing to do (erased, unknown account). */
interface Taken {
  readonly row: StoredPush;
  readonly push: Push | null;
  readonly meaning: PushMeaning | null;
}

/**
 * Does what recorded pushes ask, each once, in one transaction per round: it takes them (skipping those
 * processed already or held by another process), ends the running enrollments whose exit conditions the
 * pushes meet, records the interactions and resets the contact windows, or handles the unfollows, enrolls
 * the followers in the sequences the pushes trigger, and marks the pushes processed — all or nothing. A
 * round holds one push per follower; a follower's later pushes go in the next rounds, in the order they
 * were recorded (so an unfollow after a follow also erases the steps the follow scheduled). The steps are
 * scheduled in the round's transaction (`insertScheduled`); their wake-ups are published after commit
 * (`publishScheduled`; the outbox covers a crash in between). Returns each push's outcome: `<interaction>:<steps scheduled>`,
 * with ` exited:<enrollments ended>` when it ended some, ` paths:<yes paths started>` when it met waits and
 * ` converted:<enrollments>` when it reached goals, ` moved:<last-chance steps>` when it moved some to the
 * window it opened; `unsubscribed:<messages cancelled>`;
 * `template_report:<report>:<messages matched>` (`…:later` for a report left to the sweep); `ignored`.
 */
export async function processPushes(
  deps: ProcessDeps,
  pushIds: readonly number[],
): Promise<Map<number, string | null>> {
  const outcomes = new Map<number, string | null>();
  let remaining = pushIds;
  while (remaining.length > 0) {
    const { scheduled, later } = await withTransaction(deps.pool, async (client) => {
      const rows = await takeUnprocessedPushes(client, remaining);
      const [round = [], ...rest] = rounds(rows.map((row) => read(deps.accounts, row)));
      const deferred = new Set<number>();
      const steps = await applyRound(deps, client, round, outcomes, deferred);
      const done = round.filter((t) => !deferred.has(t.row.id));
      if (done.length > 0)
        await markPushesProcessed(
          client,
          done.map((t) => ({ id: t.row.id, outcome: outcomes.get(t.row.id) ?? null })),
        );
      return {
        scheduled: await insertScheduled(deps, client, steps),
        later: rest.flat().map((t) => t.row.id),
      };
    });
    await publishScheduled(deps, scheduled);
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

/**
 * Applies one round (distinct followers): exits first, the last-chance steps the interactions move, then
 * unfollows one by one, then interactions, the
 * waits the actions meet (their yes paths start) and enrollments together. A push's exits end only the enrollments running before it, and the steps it then
 * schedules are new: the message that starts one sequence can end another, and a push never ends the
 * enrollment it starts. (Exits and moves take the claim locks, which must come before any follower or
 * message row.)
 */
async function applyRound(
  deps: ProcessDeps,
  client: PoolClient,
  round: readonly Taken[],
  outcomes: Map<number, string | null>,
  deferred: Set<number>,
): Promise<NewMessage[]> {
  const interacting: { t: Taken; push: Push; meaning: PushMeaning }[] = [];
  const leaving: { t: Taken; push: Push }[] = [];
  const noticing: { t: Taken; push: Push; meaning: PushMeaning }[] = [];
  const reporting: { t: Taken; push: Push; meaning: PushMeaning }[] = [];
  for (const t of round) {
    const { row, push, meaning } = t;
    if (push && meaning && meaning.templateReport) reporting.push({ t, push, meaning });
    else if (push && meaning && (meaning.noticeAnswers.length > 0 || meaning.noticeResults.length > 0))
      noticing.push({ t, push, meaning });
    else if (!push || !meaning || (!meaning.unsubscribe && !meaning.interaction))
      outcomes.set(row.id, 'ignored');
    else if (meaning.unsubscribe) leaving.push({ t, push });
    else interacting.push({ t, push, meaning });
  }
  const policyOf = (appId: string) => deps.accounts.get(appId)?.windowPolicy ?? null;
  const interactions = interacting.map(({ t, push, meaning }) => ({
    appId: t.row.appId,
    openid: push.openid,
    at: t.row.receivedAt,
    windowMs: policyOf(t.row.appId)?.[meaning.interaction!]?.windowMs ?? null,
    requestId: t.row.requestId,
  }));
  const openLastChances = await listOpenLastChances(client, interactions);
  const exiting = interacting.filter(({ meaning }) => meaning.action);
  const exited = await applyExits(
    client,
    exiting.map(({ t, push, meaning }): ExitInput => ({
      appId: t.row.appId,
      openid: push.openid,
      event: meaning.action!,
    })),
    ACTOR,
    openLastChances.map((step) => step.appId),
  );
  const ends = exited.flat().length;
  if (ends > 0) deps.metrics.cancelled.inc({ scope: 'enrollment' }, ends);
  const exitsOf = new Map(exiting.map(({ t }, i) => [t.row.id, exited[i].length]));
  const lastChances = await moveLastChances(client, interactions, openLastChances, ACTOR);
  const movesOf = new Map(interacting.map(({ t }, i) => [t.row.id, lastChances.moved[i]]));
  for (const { t, push } of leaving) outcomes.set(t.row.id, await unfollow(deps, client, t.row, push));
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
  const actions = interacting
    .filter(({ meaning }) => meaning.action)
    .map(({ t, push, meaning }) => ({
      pushId: t.row.id,
      appId: t.row.appId,
      openid: push.openid,
      action: meaning.action!,
      at: t.row.receivedAt,
      requestId: t.row.requestId,
    }));
  const waited = await meetWaits(client, actions);
  const continued = waited.started.flat().length;
  if (continued > 0) deps.metrics.journeyWaits.inc({ outcome: 'yes', by: 'push' }, continued);
  const pathsOf = new Map(actions.map((a, i) => [a.pushId, waited.started[i].length]));
  const converted = await recordConversions(client, actions);
  const conversionsOf = new Map(actions.map((a, i) => [a.pushId, converted[i]]));
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
  for (const { t, meaning } of interacting) {
    const ended = exitsOf.get(t.row.id) ?? 0;
    const paths = pathsOf.get(t.row.id) ?? 0;
    const conversions = conversionsOf.get(t.row.id) ?? 0;
    const moved = movesOf.get(t.row.id) ?? 0;
    const enrolled = `${meaning.interaction}:${stepsOf.get(t.row.id)?.length ?? 0}`;
    outcomes.set(
      t.row.id,
      [
        enrolled,
        ...(ended > 0 ? [`exited:${ended}`] : []),
        ...(paths > 0 ? [`paths:${paths}`] : []),
        ...(conversions > 0 ? [`converted:${conversions}`] : []),
        ...(moved > 0 ? [`moved:${moved}`] : []),
      ].join(' '),
    );
  }
  // Last: the claim locks follower rows before acceptances, so this transaction takes them in that order too.
  const noticed = await recordNoticePushes(
    client,
    noticing.map(({ t, push, meaning }) => ({ appId: t.row.appId, openid: push.openid, meaning })),
  );
  noticing.forEach(({ t }, i) => outcomes.set(t.row.id, noticed[i]));
  for (const { t, push, meaning } of reporting) {
    const { msgid, report } = meaning.templateReport!;
    const matched = await recordTemplateReport(client, {
      appId: t.row.appId,
      openid: push.openid,
      msgid,
      report,
    });
    const early = !matched && t.row.ageMs < STALE_PUSH_AFTER_MS;
    if (early) deferred.add(t.row.id);
    outcomes.set(t.row.id, `template_report:${report}:${early ? 'later' : matched ? 1 : 0}`);
  }
  return [...lastChances.messages, ...waited.messages, ...steps.flat()];
}

/** The follower unfollowed: one ledger row cancels everything pending, and their data is erased. */
async function unfollow(deps: ProcessDeps, client: PoolClient, row: StoredPush, push: Push): Promise<string> {
  await appendCancellation(client, {
    appId: row.appId,
    scope: 'follower',
    target: push.openid,
    reason: 'unsubscribed',
    actor: ACTOR,
  });
  const cancelled = await unsubscribeAndForget(client, {
    appId: row.appId,
    openid: push.openid,
    at: row.receivedAt,
  });
  deps.metrics.cancelled.inc({ scope: 'follower' });
  return `unsubscribed:${cancelled}`;
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
    deps.logger.warn({ err: loggableError(err) }, 'stale pushes failed together; processing each alone');
    for (const id of ids)
      await processPushes(deps, [id]).catch((e: Error) =>
        deps.logger.error({ pushId: id, err: loggableError(e) }, 'push processing failed; retried later'),
      );
  }
  return ids.length;
}
