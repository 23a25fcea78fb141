import { toPush } from '../../../src/wechat/push';
import { pushTypeLabel } from '../../../src/webhook/push-type-label';

const aPush = (msgType: string, event?: string) =>
  toPush({
    ToUserName: 'gh',
    FromUserName: 'o1',
    CreateTime: '1714112445',
    MsgType: msgType,
    ...(event === undefined ? {} : { Event: event }),
  });

describe('pushTypeLabel', () => {
  it('names documented events and message types', () => {
    expect(pushTypeLabel(aPush('event', 'subscribe'))).toBe('subscribe');
    expect(pushTypeLabel(aPush('event', 'scancode_waitmsg'))).toBe('scancode_waitmsg');
    expect(pushTypeLabel(aPush('text'))).toBe('text');
    expect(pushTypeLabel(aPush('shortvideo'))).toBe('shortvideo');
  });

  it('puts anything else under other, so a push cannot mint a label value', () => {
    expect(pushTypeLabel(aPush('zz_minted'))).toBe('other');
    expect(pushTypeLabel(aPush('event', 'zz_minted'))).toBe('other');
    expect(pushTypeLabel(aPush('event'))).toBe('other');
    expect(pushTypeLabel(aPush('text', 'subscribe'))).toBe('text');
  });
});
