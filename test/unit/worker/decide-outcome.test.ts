import { decideOutcome } from '../../../src/worker/decide-outcome';
import type { ClaimedMessage } from '../../../src/store/claim-due';
import { ANSWER_LOST, classifyErrcode } from '../../../src/wechat/errcodes';
import { aTemplateMessage, aTextMessage } from '../../helpers/builders';

const policy = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, atLeastOnceAppIds: [] };
const at = new Date('2026-11-21T10:00:00Z');

function claimed(attempts: number, channel: ClaimedMessage['channel'] = 'custom'): ClaimedMessage {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    appId: 'wx1',
    openid: 'o1',
    channel,
    payload: channel === 'custom' ? aTextMessage('hi') : aTemplateMessage('hi'),
    dueAt: at,
    attempts,
    claimedAs: 'send:window',
    requestId: null,
  };
}

function decide(errcode: number | null, attempts = 1) {
  const report = { errcode, errmsg: 'x', durationMs: 5, at };
  return decideOutcome(claimed(attempts), report, classifyErrcode(errcode), policy, () => 0);
}

describe('decideOutcome', () => {
  it('marks errcode 0 sent at the time the call returned', () => {
    expect(decide(0)).toEqual({
      outcome: expect.objectContaining({ status: 'sent', label: 'sent', at }),
      republish: null,
      deadLetter: false,
      pauseAccount: false,
      closeWindow: false,
    });
  });

  it('re-delays a transient failure with backoff while attempts remain', () => {
    const { outcome, republish, deadLetter } = decide(-1, 2);
    expect({ republish, deadLetter }).toEqual({ republish: 'retry', deadLetter: false });
    expect(outcome.status).toBe('queued');
    expect(outcome.nextDueAt!.getTime() - at.getTime()).toBe(1000);
  });

  it('waits at least a minute after 45011 (per-minute quota)', () => {
    expect(decide(45011).outcome.nextDueAt!.getTime() - at.getTime()).toBeGreaterThanOrEqual(60_000);
  });

  it('fails and dead-letters once the attempts run out', () => {
    expect(decide(null, 3)).toEqual({
      outcome: expect.objectContaining({ status: 'failed', label: 'failed' }),
      republish: null,
      deadLetter: true,
      pauseAccount: false,
      closeWindow: false,
    });
  });

  it('skips on a closed window instead of retrying, and closes the window', () => {
    expect(decide(45015).outcome).toMatchObject({ status: 'skipped', reason: 'window_closed' });
    expect(decide(45015)).toMatchObject({ closeWindow: true, republish: null, deadLetter: false });
    expect(decide(45047).outcome).toMatchObject({ status: 'skipped', reason: 'window_closed' });
  });

  it('skips a notice WeChat refuses for want of an acceptance (43101) without retrying or closing the window', () => {
    expect(decide(43101)).toMatchObject({
      outcome: { status: 'skipped', reason: 'no_subscription', nextDueAt: null },
      closeWindow: false,
      republish: null,
      deadLetter: false,
    });
  });

  it('parks the message until the quota resets on 45009 and pauses the account', () => {
    const { outcome, republish, pauseAccount } = decide(45009);
    expect({ republish, pauseAccount }).toEqual({ republish: 'paused', pauseAccount: true });
    expect(outcome).toMatchObject({ status: 'queued', label: 'paused' });
    expect(outcome.nextDueAt!.toISOString()).toBe('2026-11-21T16:00:00.000Z');
  });

  it('fails a permanent error at once without dead-lettering', () => {
    expect(decide(40003)).toEqual({
      outcome: expect.objectContaining({ status: 'failed', reason: 'errcode:40003' }),
      republish: null,
      deadLetter: false,
      pauseAccount: false,
      closeWindow: false,
    });
  });

  describe('a send whose answer was lost (it may have reached WeChat)', () => {
    const lost = (
      channel: ClaimedMessage['channel'],
      opts: {
        attempts?: number;
        atLeastOnceAppIds?: string[];
        baseDelayMs?: number;
        maxDelayMs?: number;
      } = {},
    ) =>
      decideOutcome(
        claimed(opts.attempts ?? 1, channel),
        { errcode: null, errmsg: 'timeout (UND_ERR_HEADERS_TIMEOUT)', durationMs: 10_000, at },
        ANSWER_LOST,
        {
          ...policy,
          atLeastOnceAppIds: opts.atLeastOnceAppIds ?? [],
          baseDelayMs: opts.baseDelayMs ?? policy.baseDelayMs,
          maxDelayMs: opts.maxDelayMs ?? policy.maxDelayMs,
        },
        () => 0,
      );

    it('records a customer-service message unknown (answer_lost) and does not send it again', () => {
      expect(lost('custom')).toEqual({
        outcome: expect.objectContaining({
          status: 'unknown',
          reason: 'answer_lost',
          label: 'unknown',
          errcode: null,
          nextDueAt: null,
        }),
        republish: null,
        deadLetter: false,
        pauseAccount: false,
        closeWindow: false,
      });
    });

    it('retries a template message: WeChat de-duplicates its client_msg_id', () => {
      const { outcome, republish } = lost('template');
      expect(republish).toBe('retry');
      expect(outcome).toMatchObject({ status: 'queued', reason: 'answer_lost', label: 'retry' });
    });

    it('records a template message unknown when its retry would come after WeChat stopped de-duplicating', () => {
      // A 20-minute base delay (jitter 0: 10 minutes) brings the retry past WeChat's 10-minute window.
      const late = lost('template', { baseDelayMs: 20 * 60_000, maxDelayMs: 20 * 60_000 });
      expect(late).toMatchObject({ outcome: { status: 'unknown', reason: 'answer_lost' }, republish: null });
    });

    it('retries a customer-service message of an account that opted into at-least-once', () => {
      const { outcome, republish } = lost('custom', { atLeastOnceAppIds: ['wx1'] });
      expect(republish).toBe('retry');
      expect(outcome).toMatchObject({ status: 'queued', reason: 'answer_lost', label: 'retry' });
    });

    it('fails and dead-letters a resendable message once its attempts run out', () => {
      expect(lost('template', { attempts: 3 })).toMatchObject({
        outcome: { status: 'failed', reason: 'answer_lost' },
        deadLetter: true,
      });
    });
  });
});
