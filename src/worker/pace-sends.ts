import type { AccountRegistry } from '../accounts/registry';
import type { ClaimedMessage } from '../store/claim-due';
import type { SendCount, SendReservation } from '../store/send-pacing';

/** Resolves when the claimed message's reserved turn under its account's send rate has come. */
export type AwaitTurn = (message: ClaimedMessage) => Promise<void>;

/**
 * Paces a claim's sends under each account's deployment-wide rate: one reservation for the whole claim
 * (`reserve`, one statement), then each message waits for its own slot, in claim order per account.
 * An account the registry does not have yet was perhaps created a moment ago (its notification still on
 * the way): the registry is read once more first, so that the sender knows it. An account without a
 * reservation was deleted meanwhile: its sends do not wait, and fail as an unknown account.
 */
export function createPaceSends(deps: {
  readonly reserve: (counts: readonly SendCount[]) => Promise<SendReservation[]>;
  readonly accounts: Pick<AccountRegistry, 'get' | 'refresh'>;
  /** ms, monotonic; injectable for tests. */
  readonly now?: () => number;
}): (claimed: readonly ClaimedMessage[]) => Promise<AwaitTurn> {
  const now = deps.now ?? (() => performance.now());
  return async (claimed) => {
    if (claimed.length === 0) return () => Promise.resolve();
    const counts = new Map<string, { appId: string; custom: number; template: number }>();
    for (const m of claimed) {
      const c = counts.get(m.appId) ?? { appId: m.appId, custom: 0, template: 0 };
      if (m.channel === 'template') c.template++;
      else c.custom++;
      counts.set(m.appId, c);
    }
    if ([...counts.keys()].some((appId) => !deps.accounts.get(appId))) await deps.accounts.refresh();
    const reservations = await deps.reserve([...counts.values()]);
    const at = now();
    const next = new Map(reservations.map((r) => [r.appId, { ...r, taken: 0 }]));
    const turns = new Map<string, number>();
    for (const m of claimed) {
      const r = next.get(m.appId);
      if (r) turns.set(m.id, at + r.startInMs + r.taken++ * r.intervalMs);
    }
    return (message) => {
      const waitMs = (turns.get(message.id) ?? 0) - now();
      return waitMs > 0 ? new Promise((resolve) => setTimeout(resolve, waitMs)) : Promise.resolve();
    };
  };
}
