import { Writable } from 'node:stream';
import pino from 'pino';
import { AppError } from '../../../src/errors';
import type { SendResult, WechatClient } from '../../../src/wechat/client';
import { classifySendFailure, createJudgedSender } from '../../../src/wechat/judged-sender';
import { silentLogger } from '../../helpers/logger';

const APP_ID = 'wxjudged';
const TEXT = { msgtype: 'text', text: { content: 'hello' } } as const;
const TEMPLATE = { template_id: 'TPL', data: { first: { value: 'x' } } };
const MISCONFIGURED = new AppError(
  'token_error',
  'access token for wxjudged unavailable: invalid appsecret',
  {
    retryable: false,
  },
);

/** A WeChat client whose every send settles as `settle` says, recording what it was asked. */
function aClient(settle: () => Promise<SendResult>) {
  const calls: unknown[][] = [];
  const client: Pick<WechatClient, 'sendCustom' | 'sendTemplate' | 'sendNotice'> = {
    sendCustom: (...args) => {
      calls.push(['custom', ...args]);
      return settle();
    },
    sendTemplate: (...args) => {
      calls.push(['template', ...args]);
      return settle();
    },
    sendNotice: (...args) => {
      calls.push(['notice', ...args]);
      return settle();
    },
  };
  return { client, calls };
}

describe('judged sender', () => {
  it('judges a notice refused for want of an acceptance (43101) as no_subscription', async () => {
    const answer: SendResult = { errcode: 43101, errmsg: 'user refuse to accept the msg', durationMs: 3 };
    const { client, calls } = aClient(() => Promise.resolve(answer));
    const judged = await createJudgedSender(client, silentLogger).sendNotice(APP_ID, 'o1', TEMPLATE);
    expect(judged.verdict).toEqual({ action: 'no_subscription', reason: 'no_subscription' });
    expect(calls).toEqual([['notice', APP_ID, 'o1', TEMPLATE]]);
  });

  it("passes WeChat's answer through with the errcode table's verdict", async () => {
    const answer: SendResult = { errcode: 45009, errmsg: 'reach max api daily quota limit', durationMs: 7 };
    const { client, calls } = aClient(() => Promise.resolve(answer));
    const judged = await createJudgedSender(client, silentLogger).sendCustom(APP_ID, 'o1', TEXT);
    expect(judged).toEqual({
      result: answer,
      at: expect.any(Date) as Date,
      verdict: { action: 'stop_account', reason: 'errcode:45009' },
    });
    expect(calls).toEqual([['custom', APP_ID, 'o1', TEXT]]);
  });

  it('judges a send whose answer was lost (it may have reached WeChat) answer_lost, not no_answer', async () => {
    const lost: SendResult = {
      errcode: null,
      errmsg: 'timeout (UND_ERR_HEADERS_TIMEOUT)',
      durationMs: 10_000,
      answerLost: true,
    };
    const { client } = aClient(() => Promise.resolve(lost));
    const judged = await createJudgedSender(client, silentLogger).sendCustom(APP_ID, 'o1', TEXT);
    expect(judged.verdict).toEqual({ action: 'answer_lost', reason: 'answer_lost' });
  });

  it('judges a send that never reached WeChat no_answer, to be retried', async () => {
    const refused: SendResult = { errcode: null, errmsg: 'network error (ECONNREFUSED)', durationMs: 1 };
    const { client } = aClient(() => Promise.resolve(refused));
    const judged = await createJudgedSender(client, silentLogger).sendCustom(APP_ID, 'o1', TEXT);
    expect(judged.verdict).toEqual({ action: 'retry', reason: 'no_answer' });
  });

  it('sends a template message with the client_msg_id it is given', async () => {
    const { client, calls } = aClient(() =>
      Promise.resolve({ errcode: 0, errmsg: 'ok', durationMs: 1, msgid: '9' }),
    );
    const judged = await createJudgedSender(client, silentLogger).sendTemplate(APP_ID, 'o1', TEMPLATE, 'key');
    expect(judged.verdict).toEqual({ action: 'ok', reason: 'ok' });
    expect(judged.result.msgid).toBe('9');
    expect(calls).toEqual([['template', APP_ID, 'o1', TEMPLATE, 'key']]);
  });

  it('when the account is misconfigured, resolves with a five-minute stop_account and logs it', async () => {
    const lines: string[] = [];
    const logger = pino(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const { client } = aClient(() => Promise.reject(MISCONFIGURED));
    const before = Date.now();
    const judged = await createJudgedSender(client, logger).sendCustom(APP_ID, 'o1', TEXT);
    expect(judged.result).toEqual({ errcode: null, errmsg: MISCONFIGURED.message, durationMs: 0 });
    expect(judged.verdict).toEqual({
      action: 'stop_account',
      reason: 'token_error',
      resumeAt: new Date(judged.at.getTime() + 5 * 60 * 1000),
    });
    expect(judged.at.getTime()).toBeGreaterThanOrEqual(before);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 50, appId: APP_ID, msg: 'account misconfigured; pausing it' }),
    ]);
  });

  it('when the token endpoint is only unwell, resolves with a retry as if WeChat had not answered', async () => {
    const unwell = new AppError('token_error', 'access token unavailable: timeout', { retryable: true });
    const { client } = aClient(() => Promise.reject(unwell));
    const judged = await createJudgedSender(client, silentLogger).sendTemplate(APP_ID, 'o1', TEMPLATE, 'k');
    expect(judged.result).toEqual({ errcode: null, errmsg: unwell.message, durationMs: 0 });
    expect(judged.verdict).toEqual({ action: 'retry', reason: 'no_answer' });
  });
});

describe('classifySendFailure', () => {
  const at = new Date('2024-05-01T10:00:00Z');

  it('parks the account for five minutes on an AppError that is not retryable, naming its code', () => {
    const unknown = new AppError('unknown_account', 'no WeChat account wxother is configured');
    expect(classifySendFailure(unknown, at)).toEqual({
      action: 'stop_account',
      reason: 'unknown_account',
      resumeAt: new Date('2024-05-01T10:05:00Z'),
    });
  });

  it('retries anything else (a retryable AppError, a driver error) as an unanswered send', () => {
    expect(classifySendFailure(new AppError('token_error', 'busy', { retryable: true }), at)).toEqual({
      action: 'retry',
      reason: 'no_answer',
    });
    expect(classifySendFailure(new Error('connection terminated'), at)).toEqual({
      action: 'retry',
      reason: 'no_answer',
    });
  });
});
