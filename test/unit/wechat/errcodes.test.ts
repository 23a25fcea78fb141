import {
  classifyErrcode,
  classifySend,
  isTokenErrcode,
  type ErrcodeVerdict,
} from '../../../src/wechat/errcodes';

const fail = (errcode: number): ErrcodeVerdict => ({ action: 'fail', reason: `errcode:${errcode}` });

describe('classifyErrcode', () => {
  it('treats errcode 0 as success', () => {
    expect(classifyErrcode(0)).toEqual({ action: 'ok', reason: 'ok' });
  });

  it('retries when no usable answer came back from a request that never reached WeChat, or a 5xx / not JSON', () => {
    expect(classifyErrcode(null)).toEqual({ action: 'retry', reason: 'no_answer' });
  });

  it('retries -1 (system busy) without a minimum delay', () => {
    expect(classifyErrcode(-1)).toEqual({ action: 'retry', reason: 'errcode:-1' });
  });

  it('retries 45011 (minute quota) no sooner than a minute later', () => {
    expect(classifyErrcode(45011)).toEqual({
      action: 'retry',
      reason: 'errcode:45011',
      minRetryDelayMs: 60_000,
    });
  });

  it.each([40001, 40014, 42001])('asks for a token refresh on %i', (errcode) => {
    expect(classifyErrcode(errcode)).toEqual({ action: 'refresh_token', reason: `errcode:${errcode}` });
  });

  it('reports 45015 as a closed contact window', () => {
    expect(classifyErrcode(45015)).toEqual({ action: 'window_closed', reason: 'window_closed' });
  });

  it('reports 45047 as a closed window whose message quota is used up', () => {
    expect(classifyErrcode(45047)).toEqual({ action: 'window_closed', reason: 'window_closed' });
  });

  it('stops the account on 45009 (daily quota reached)', () => {
    expect(classifyErrcode(45009)).toEqual({ action: 'stop_account', reason: 'errcode:45009' });
  });

  it.each([
    41001, 40002, 40013, 40125, 40164, 61004, 40243, 40003, 40007, 43004, 43019, 45002, 45008, 47001, 47003,
    45162, 48002, 48004, 50002,
  ])('fails permanently on %i with the errcode as the reason', (errcode) => {
    expect(classifyErrcode(errcode)).toEqual(fail(errcode));
  });

  it.each([
    [43116, 'template_banned'],
    [40249, 'content_blocked'],
    [48001, 'not_authorized'],
  ])('fails %i for good with a reason a step result counts by name (%s)', (errcode, reason) => {
    expect(classifyErrcode(errcode)).toEqual({ action: 'fail', reason });
  });

  it('retries 43117 (too frequent for this follower) no sooner than ten minutes later', () => {
    expect(classifyErrcode(43117)).toEqual({
      action: 'retry',
      reason: 'too_frequent',
      minRetryDelayMs: 10 * 60_000,
    });
  });

  it.each([12345, -2, 99999])(
    'fails permanently on the unknown errcode %i rather than retrying it',
    (errcode) => {
      expect(classifyErrcode(errcode)).toEqual(fail(errcode));
    },
  );
});

describe('isTokenErrcode', () => {
  it('is true exactly for the codes that call for a token refresh', () => {
    expect([40001, 40014, 42001, 0, -1, 45015, 40013, null].map(isTokenErrcode)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('classifySend', () => {
  it('judges a lost answer (the request may have reached WeChat) answer_lost', () => {
    expect(classifySend({ errcode: null, answerLost: true })).toEqual({
      action: 'answer_lost',
      reason: 'answer_lost',
    });
  });

  it('judges everything else by the errcode table: no answer, -1 and a 5xx stay retryable', () => {
    expect(classifySend({ errcode: null })).toEqual({ action: 'retry', reason: 'no_answer' });
    expect(classifySend({ errcode: -1 })).toEqual({ action: 'retry', reason: 'errcode:-1' });
    expect(classifySend({ errcode: 0 })).toEqual({ action: 'ok', reason: 'ok' });
  });
});
