import { decideSlice } from '../../../src/policy/decide-slice';
import type { Decision } from '../../../src/policy/decision';
import type {
  AccountSnapshot,
  ClaimSnapshot,
  FollowerSnapshot,
  MessageSnapshot,
  PolicyClock,
} from '../../../src/policy/snapshot';

// The send policy as a table: one row per rule the README names and per interaction of rules, each
// row a claimed slice (in due order) and the exact decision for each of its messages.

const at = (iso: string) => new Date(iso);
/** 12:00 in Shanghai; the next capped day starts at 16:00Z. */
const NOW = at('2026-03-10T04:00:00.000Z');
const CLOCK: PolicyClock = {
  now: NOW,
  clock: NOW,
  capDay: '2026-03-10',
  nextCapDayAt: at('2026-03-10T16:00:00.000Z'),
};
const OPTIONS = { toleranceMs: 20, rateHorizonMs: 1000 };
const later = (ms: number) => new Date(NOW.getTime() + ms);
const HOUR = 3_600_000;
/** Quiet hours around NOW (11:00–13:00 Shanghai): they end at 05:00Z. */
const QUIET = { start: '11:00', end: '13:00' };
const QUIET_END = at('2026-03-10T05:00:00.000Z');
const TPL = 'NOTICE-TPL';

let n = 0;
interface Shape {
  message?: Partial<MessageSnapshot>;
  account?: Partial<AccountSnapshot>;
  follower?: Partial<FollowerSnapshot> | null;
  acceptancesLeft?: number;
}
/** A customer-service message due now to a follower whose window is open (5 left, a day to go). */
function a(shape: Shape = {}): ClaimSnapshot {
  n += 1;
  const message: MessageSnapshot = {
    id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
    appId: 'wx-app',
    openid: 'o-1',
    channel: 'custom',
    fallback: null,
    noticeTemplate: null,
    dueAt: NOW,
    staleAt: null,
    coveredByLedger: false,
    frequencyCapped: false,
    sequence: null,
    ...shape.message,
  };
  const account: AccountSnapshot = {
    disabled: false,
    windowChecked: true,
    pausedUntil: null,
    frequencyCapPerDay: null,
    quietHours: null,
    timeZone: 'Asia/Shanghai',
    sendRatePerSecond: 50,
    rateReservedUntil: null,
    ...shape.account,
  };
  const follower: FollowerSnapshot | null =
    shape.follower === null
      ? null
      : {
          subscribed: true,
          windowExpiresAt: later(24 * HOUR),
          windowRemaining: 5,
          cappedDay: null,
          cappedSent: 0,
          ...shape.follower,
        };
  return { message, account, follower, acceptancesLeft: shape.acceptancesLeft ?? 0 };
}

// Shapes of messages and followers the rows combine.
const step: Partial<MessageSnapshot> = { sequence: { quietHours: null }, frequencyCapped: true };
const template: Partial<MessageSnapshot> = { channel: 'template' };
const notice: Partial<MessageSnapshot> = { channel: 'notice', noticeTemplate: TPL };
const templateFallback: Partial<MessageSnapshot> = { fallback: 'template' };
const noticeFallback: Partial<MessageSnapshot> = { fallback: 'notice', noticeTemplate: TPL };
const unfollowed: Partial<FollowerSnapshot> = {
  subscribed: false,
  windowExpiresAt: null,
  windowRemaining: 0,
};
const closedWindow: Partial<FollowerSnapshot> = { windowExpiresAt: later(-1000) };
const quietAccount: Partial<AccountSnapshot> = { quietHours: QUIET };
const capOf = (cap: number): Partial<AccountSnapshot> => ({ frequencyCapPerDay: cap });

// Decisions.
const window: Decision = { kind: 'send', channel: 'custom', as: 'send:window' };
const sendAs = (channel: 'custom' | 'template' | 'notice'): Decision => ({
  kind: 'send',
  channel,
  as: 'send',
});
const onFallback = (channel: 'template' | 'notice'): Decision => ({
  kind: 'send',
  channel,
  as: 'send:fallback',
});
const skip = (reason: string): Decision => ({ kind: 'skip', reason }) as Decision;
const move = (to: Date, reason: string): Decision => ({ kind: 'move', to, reason }) as Decision;
const early = (remainingMs: number, reason: string): Decision =>
  ({ kind: 'early', remainingMs, reason }) as Decision;
const cancelled: Decision = { kind: 'cancelled' };

const rows: [string, () => ClaimSnapshot[], Decision[]][] = [
  // Ledger.
  [
    'a cancellation in the ledger wins over everything',
    () => [
      a({
        message: { coveredByLedger: true, staleAt: later(-1) },
        account: { disabled: true, pausedUntil: later(HOUR) },
      }),
    ],
    [cancelled],
  ],
  // Account paused.
  [
    'a paused account’s message moves to the pause’s end',
    () => [a({ account: { pausedUntil: later(HOUR) } })],
    [move(later(HOUR), 'early')],
  ],
  ['a pause that has ended holds nothing', () => [a({ account: { pausedUntil: later(-1) } })], [window]],
  [
    'a pause wins over disabled, stale and quiet hours',
    () => [
      a({
        message: { ...step, staleAt: later(-1) },
        account: { ...quietAccount, disabled: true, pausedUntil: later(HOUR) },
      }),
    ],
    [move(later(HOUR), 'early')],
  ],
  // Not yet due.
  [
    'a message not due yet waits for the rest of its time',
    () => [a({ message: { dueAt: later(5000) } })],
    [early(5000, 'early')],
  ],
  ['a message due within the tolerance is due', () => [a({ message: { dueAt: later(15) } })], [window]],
  [
    'a message not due yet waits even when its account is disabled',
    () => [a({ message: { dueAt: later(5000) }, account: { disabled: true } })],
    [early(5000, 'early')],
  ],
  // Send rate.
  [
    'an account whose rate is reserved past the horizon holds its due messages, spread at its rate',
    () => [
      a({ account: { rateReservedUntil: later(3000) } }),
      a({ account: { rateReservedUntil: later(3000) } }),
    ],
    [early(2000, 'send_rate'), early(2020, 'send_rate')],
  ],
  [
    'reservations within the horizon hold nothing',
    () => [a({ account: { rateReservedUntil: later(900) } })],
    [window],
  ],
  [
    'a message not due yet is early, not held for the rate',
    () => [a({ message: { dueAt: later(5000) }, account: { rateReservedUntil: later(3000) } })],
    [early(5000, 'early')],
  ],
  // Account disabled.
  [
    'a disabled account’s due message is skipped',
    () => [a({ account: { disabled: true } })],
    [skip('account_disabled')],
  ],
  [
    'disabled comes before stale',
    () => [a({ message: { staleAt: later(-1) }, account: { disabled: true } })],
    [skip('account_disabled')],
  ],
  // Stale.
  [
    'a message later than its maxLatenessMs is skipped stale',
    () => [a({ message: { staleAt: later(-1) } })],
    [skip('stale')],
  ],
  [
    'stale comes before unsubscribed and quiet hours',
    () => [a({ message: { ...step, staleAt: later(-1) }, account: quietAccount, follower: unfollowed })],
    [skip('stale')],
  ],
  ['a message just within its lateness goes', () => [a({ message: { staleAt: NOW } })], [window]],
  // Unfollowed.
  [
    'a customer-service message to someone who unfollowed is skipped',
    () => [a({ follower: unfollowed })],
    [skip('unsubscribed')],
  ],
  [
    'a template message to someone who unfollowed is skipped',
    () => [a({ message: template, follower: unfollowed })],
    [skip('unsubscribed')],
  ],
  [
    'a notice reaches someone who unfollowed while an acceptance is left',
    () => [a({ message: notice, follower: unfollowed, acceptancesLeft: 1 })],
    [sendAs('notice')],
  ],
  [
    'a notice to someone who unfollowed without an acceptance is skipped unsubscribed',
    () => [a({ message: notice, follower: unfollowed })],
    [skip('unsubscribed')],
  ],
  [
    'one acceptance, two notices to someone who unfollowed: one goes',
    () => [
      a({ message: notice, follower: unfollowed, acceptancesLeft: 1 }),
      a({ message: notice, follower: unfollowed, acceptancesLeft: 1 }),
    ],
    [sendAs('notice'), skip('unsubscribed')],
  ],
  [
    'a message with a notice fallback reaches someone who unfollowed on its fallback',
    () => [a({ message: noticeFallback, follower: unfollowed, acceptancesLeft: 1 })],
    [onFallback('notice')],
  ],
  [
    '… even with the window still open in the record, never as customer service',
    () => [a({ message: noticeFallback, follower: { subscribed: false }, acceptancesLeft: 1 })],
    [onFallback('notice')],
  ],
  [
    'a message with a template fallback to someone who unfollowed is skipped',
    () => [a({ message: templateFallback, follower: unfollowed })],
    [skip('unsubscribed')],
  ],
  [
    'a notice to someone who unfollowed falls in quiet hours: moved to their end',
    () => [
      a({ message: { ...step, ...notice }, account: quietAccount, follower: unfollowed, acceptancesLeft: 1 }),
    ],
    [move(QUIET_END, 'quiet_hours')],
  ],
  [
    'a capped notice to someone who unfollowed counts against the cap',
    () => [
      a({
        message: { ...step, ...notice },
        account: capOf(1),
        follower: { ...unfollowed, cappedDay: '2026-03-10', cappedSent: 1 },
        acceptancesLeft: 1,
      }),
    ],
    [move(CLOCK.nextCapDayAt, 'frequency_cap')],
  ],
  // Quiet hours.
  [
    'a step due in quiet hours moves to their end while the window is open then',
    () => [a({ message: step, account: quietAccount })],
    [move(QUIET_END, 'quiet_hours')],
  ],
  [
    '… is skipped at once when the window closes before they end and it has no fallback',
    () => [a({ message: step, account: quietAccount, follower: { windowExpiresAt: later(60_000) } })],
    [skip('quiet_hours')],
  ],
  [
    '… moves with a template fallback',
    () => [a({ message: { ...step, ...templateFallback }, account: quietAccount, follower: closedWindow })],
    [move(QUIET_END, 'quiet_hours')],
  ],
  [
    '… moves with a notice fallback',
    () => [a({ message: { ...step, ...noticeFallback }, account: quietAccount, follower: closedWindow })],
    [move(QUIET_END, 'quiet_hours')],
  ],
  [
    '… moves as a template step',
    () => [a({ message: { ...step, ...template }, account: quietAccount, follower: null })],
    [move(QUIET_END, 'quiet_hours')],
  ],
  [
    '… moves on an account whose window is not checked here',
    () => [a({ message: step, account: { ...quietAccount, windowChecked: false }, follower: closedWindow })],
    [move(QUIET_END, 'quiet_hours')],
  ],
  [
    '… is skipped when it would be stale by their end',
    () => [a({ message: { ...step, ...template, staleAt: later(60_000) }, account: quietAccount })],
    [skip('quiet_hours')],
  ],
  [
    '… only as many as the window allows at their end',
    () => [
      a({ message: step, account: quietAccount, follower: { windowRemaining: 1 } }),
      a({ message: step, account: quietAccount, follower: { windowRemaining: 1 } }),
    ],
    [move(QUIET_END, 'quiet_hours'), skip('quiet_hours')],
  ],
  ['an API message goes out in quiet hours', () => [a({ account: quietAccount })], [window]],
  [
    'a sequence that turned quiet hours off goes out in the account’s',
    () => [a({ message: { sequence: { quietHours: false } }, account: quietAccount })],
    [window],
  ],
  [
    'a sequence’s own quiet hours apply without an account default',
    () => [a({ message: { sequence: { quietHours: QUIET } } })],
    [move(QUIET_END, 'quiet_hours')],
  ],
  [
    'quiet hours are read in the account’s zone (11:00–13:00 in UTC is not now)',
    () => [a({ message: step, account: { ...quietAccount, timeZone: 'UTC' } })],
    [window],
  ],
  [
    'a step moved for quiet hours counts against neither the window nor the cap',
    () => [
      a({ message: step, account: { ...quietAccount, ...capOf(1) }, follower: { windowRemaining: 1 } }),
      a({
        message: { frequencyCapped: true },
        account: { ...quietAccount, ...capOf(1) },
        follower: { windowRemaining: 1 },
      }),
    ],
    [move(QUIET_END, 'quiet_hours'), window],
  ],
  // Frequency cap.
  [
    'capped messages go up to the cap; the one over it moves to the next day',
    () => [
      a({ message: step, account: capOf(2) }),
      a({ message: step, account: capOf(2) }),
      a({ message: step, account: capOf(2) }),
    ],
    [window, window, move(CLOCK.nextCapDayAt, 'frequency_cap')],
  ],
  [
    'today’s earlier capped sends count',
    () => [a({ message: step, account: capOf(2), follower: { cappedDay: '2026-03-10', cappedSent: 2 } })],
    [move(CLOCK.nextCapDayAt, 'frequency_cap')],
  ],
  [
    'yesterday’s capped sends do not',
    () => [a({ message: step, account: capOf(2), follower: { cappedDay: '2026-03-09', cappedSent: 2 } })],
    [window],
  ],
  [
    'messages that are not capped are not counted',
    () => [a({ account: capOf(1) }), a({ account: capOf(1) }), a({ message: step, account: capOf(1) })],
    [window, window, window],
  ],
  [
    'an account without a cap caps nothing',
    () => [a({ message: step }), a({ message: step }), a({ message: step })],
    [window, window, window],
  ],
  [
    'a follower never heard from is not counted (three capped templates, cap 2)',
    () => [
      a({ message: { ...template, frequencyCapped: true }, account: capOf(2), follower: null }),
      a({ message: { ...template, frequencyCapped: true }, account: capOf(2), follower: null }),
      a({ message: { ...template, frequencyCapped: true }, account: capOf(2), follower: null }),
    ],
    [sendAs('template'), sendAs('template'), sendAs('template')],
  ],
  [
    'a message over the cap that would be stale by the next day is skipped',
    () => [
      a({
        message: { ...step, staleAt: later(HOUR) },
        account: capOf(1),
        follower: { cappedDay: '2026-03-10', cappedSent: 1 },
      }),
    ],
    [skip('frequency_cap')],
  ],
  [
    'a message over the cap whose window closes before the next day is skipped',
    () => [
      a({
        message: step,
        account: capOf(1),
        follower: { windowExpiresAt: later(HOUR), cappedDay: '2026-03-10', cappedSent: 1 },
      }),
    ],
    [skip('frequency_cap')],
  ],
  [
    '… moves with a fallback',
    () => [
      a({
        message: { ...step, ...templateFallback },
        account: capOf(1),
        follower: { windowExpiresAt: later(HOUR), cappedDay: '2026-03-10', cappedSent: 1 },
      }),
    ],
    [move(CLOCK.nextCapDayAt, 'frequency_cap')],
  ],
  [
    'capped messages skipped for another reason do not count',
    () => [
      a({ message: { ...step, staleAt: later(-1) }, account: capOf(2) }),
      a({ message: { ...step, ...notice }, account: capOf(2) }),
      a({ message: step, account: capOf(2) }),
      a({ message: step, account: capOf(2) }),
    ],
    [skip('stale'), skip('no_subscription'), window, window],
  ],
  [
    'quiet hours come before the cap',
    () => [
      a({
        message: step,
        account: { ...quietAccount, ...capOf(1) },
        follower: { cappedDay: '2026-03-10', cappedSent: 1 },
      }),
    ],
    [move(QUIET_END, 'quiet_hours')],
  ],
  // Subscription notices.
  [
    'a notice goes out once per acceptance; the next is skipped no_subscription',
    () => [a({ message: notice, acceptancesLeft: 1 }), a({ message: notice, acceptancesLeft: 1 })],
    [sendAs('notice'), skip('no_subscription')],
  ],
  [
    'a notice without an acceptance is skipped, even on an account whose window is not checked',
    () => [a({ message: notice, account: { windowChecked: false } })],
    [skip('no_subscription')],
  ],
  [
    'a notice needs no window',
    () => [a({ message: notice, follower: null, acceptancesLeft: 2 })],
    [sendAs('notice')],
  ],
  // Contact window, allowance and fallback.
  [
    'a customer-service message goes in the open window, one unit each',
    () => [
      a({ follower: { windowRemaining: 2 } }),
      a({ follower: { windowRemaining: 2 } }),
      a({ follower: { windowRemaining: 2 } }),
    ],
    [window, window, skip('window_closed')],
  ],
  [
    'past the allowance it goes on its template fallback',
    () => [
      a({ follower: { windowRemaining: 1 } }),
      a({ message: templateFallback, follower: { windowRemaining: 1 } }),
    ],
    [window, onFallback('template')],
  ],
  [
    'a closed window sends the template fallback',
    () => [a({ message: templateFallback, follower: closedWindow })],
    [onFallback('template')],
  ],
  [
    'a closed window without a fallback skips window_closed',
    () => [a({ follower: closedWindow })],
    [skip('window_closed')],
  ],
  ['a follower never heard from has no window', () => [a({ follower: null })], [skip('window_closed')]],
  [
    'an open window sends the message itself and keeps the notice acceptance',
    () => [
      a({ message: noticeFallback, acceptancesLeft: 1 }),
      a({ message: noticeFallback, acceptancesLeft: 1, follower: closedWindow }),
    ],
    [window, onFallback('notice')],
  ],
  [
    'a closed window with a notice fallback and no acceptance skips no_subscription',
    () => [a({ message: noticeFallback, follower: closedWindow })],
    [skip('no_subscription')],
  ],
  [
    'template messages are not bound by the window and do not spend it',
    () => [
      a({ message: template, follower: { windowRemaining: 1 } }),
      a({ follower: { windowRemaining: 1 } }),
    ],
    [sendAs('template'), window],
  ],
  [
    'an account whose window is not checked here sends as it is',
    () => [a({ account: { windowChecked: false }, follower: closedWindow })],
    [sendAs('custom')],
  ],
  [
    'each follower has a window of their own',
    () => [
      a({ follower: { windowRemaining: 1 } }),
      a({ message: { openid: 'o-2' }, follower: { windowRemaining: 1 } }),
    ],
    [window, window],
  ],
];

describe('the send policy (decideSlice)', () => {
  it.each(rows)('%s', (_rule, slice, expected) => {
    const { decisions } = decideSlice(slice(), CLOCK, OPTIONS);
    expect(decisions.map((d) => d.decision)).toEqual(expected);
  });

  it('leaves the counters the slice spent: window allowance, capped sends of today, acceptances', () => {
    const follower = { windowRemaining: 3, cappedDay: '2026-03-09', cappedSent: 4 };
    const slice = [
      a({ message: step, account: capOf(5), follower }),
      a({ message: { ...notice, frequencyCapped: true }, account: capOf(5), follower, acceptancesLeft: 2 }),
      a({ message: { openid: 'o-2' }, follower: { windowRemaining: 1 } }),
      a({ message: { openid: 'o-3', ...template } }),
    ];
    const { followers, acceptances } = decideSlice(slice, CLOCK, OPTIONS);
    expect(followers).toEqual([
      { appId: 'wx-app', openid: 'o-1', windowRemaining: 2, cappedDay: '2026-03-10', cappedSent: 2 },
      { appId: 'wx-app', openid: 'o-2', windowRemaining: 0, cappedDay: null, cappedSent: 0 },
    ]);
    expect(acceptances).toEqual([{ appId: 'wx-app', openid: 'o-1', templateId: TPL, remaining: 1 }]);
  });
});
