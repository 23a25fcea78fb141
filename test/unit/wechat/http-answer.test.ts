import { classifyRequestError, describeRequestError, interpretAnswer } from '../../../src/wechat/http-answer';

describe('interpretAnswer', () => {
  it('reads WeChat’s errcode and errmsg from an HTTP 200 answer', () => {
    expect(interpretAnswer(200, '{"errcode":45015,"errmsg":"response out of time limit"}')).toEqual({
      errcode: 45015,
      errmsg: 'response out of time limit',
      json: { errcode: 45015, errmsg: 'response out of time limit' },
    });
  });

  it('keeps every digit of a msgid above 2^53, which a JSON number would round', () => {
    const answer = interpretAnswer(200, '{"errcode":0,"errmsg":"ok","msgid":2851286548066189313}');
    expect(answer.msgid).toBe('2851286548066189313');
    expect(String(answer.json?.msgid)).not.toBe('2851286548066189313');
    expect(interpretAnswer(200, '{"errcode":0,"errmsg":"ok","msgid":200000001}').msgid).toBe('200000001');
    expect(interpretAnswer(200, '{"errcode":0,"errmsg":"ok"}').msgid).toBeUndefined();
  });

  it('has no usable answer for a 5xx, whatever its body says', () => {
    expect(interpretAnswer(502, '{"errcode":0}')).toEqual({ errcode: null, errmsg: 'http 502' });
  });

  it('has no usable answer for a body that is not a JSON object', () => {
    expect(interpretAnswer(200, '<html>')).toEqual({
      errcode: null,
      errmsg: 'http 200: the answer is not JSON',
    });
    expect(interpretAnswer(200, '[1]').errcode).toBeNull();
  });

  it('has no usable answer for JSON without errcode, unless a token answer is expected', () => {
    const token = '{"access_token":"T","expires_in":7200}';
    expect(interpretAnswer(200, token).errcode).toBeNull();
    expect(interpretAnswer(200, token, true)).toEqual({
      errcode: 0,
      errmsg: 'ok',
      json: { access_token: 'T', expires_in: 7200 },
    });
    expect(interpretAnswer(404, token, true).errcode).toBeNull();
  });
});

describe('describeRequestError', () => {
  it('tells timeouts from other network errors', () => {
    expect(describeRequestError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toBe(
      'timeout (UND_ERR_HEADERS_TIMEOUT)',
    );
    expect(describeRequestError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(
      'network error (ECONNREFUSED)',
    );
    expect(describeRequestError(new TypeError('boom'))).toBe('network error (TypeError)');
  });
});

describe('classifyRequestError', () => {
  const failed = (code: string) => classifyRequestError(Object.assign(new Error('x'), { code }));

  it.each([
    'UND_ERR_CONNECT_TIMEOUT',
    'ECONNREFUSED',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ENOTFOUND',
    'EAI_AGAIN',
    'UND_ERR_CLOSED',
  ])('says a request that failed with %s never reached WeChat', (code) =>
    expect(failed(code).fate).toBe('not_sent'),
  );

  it.each([
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    'UND_ERR_SOCKET',
    'ECONNRESET',
    'EPIPE',
    'UND_ERR_DESTROYED',
  ])('says a request that failed with %s may have reached WeChat', (code) =>
    expect(failed(code).fate).toBe('maybe_sent'),
  );

  it('says an error it cannot place may have reached WeChat', () => {
    expect(classifyRequestError(new TypeError('boom'))).toEqual({
      fate: 'maybe_sent',
      errmsg: 'network error (TypeError)',
    });
    expect(failed('E_SOMETHING_NEW').fate).toBe('maybe_sent');
  });

  it('words timeouts as timeouts', () => {
    expect(failed('UND_ERR_CONNECT_TIMEOUT').errmsg).toBe('timeout (UND_ERR_CONNECT_TIMEOUT)');
    expect(failed('UND_ERR_BODY_TIMEOUT').errmsg).toBe('timeout (UND_ERR_BODY_TIMEOUT)');
  });
});
