import { parsePlatformEvent } from '../../../src/accounts/platform-event';
import { AppError } from '../../../src/errors';

const COMPONENT = 'wxcomponent00000001';
const base = { AppId: COMPONENT, CreateTime: '1413192760' };
const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as AppError).code;
  }
  return 'no error';
};

describe('parsePlatformEvent', () => {
  it('reads a component_verify_ticket push', () => {
    expect(
      parsePlatformEvent(
        { ...base, InfoType: 'component_verify_ticket', ComponentVerifyTicket: 'ticket@@@x' },
        COMPONENT,
      ),
    ).toEqual({
      infoType: 'component_verify_ticket',
      createTime: new Date(1413192760_000),
      ticket: 'ticket@@@x',
    });
  });

  it('reads the code expiry as an instant, or as seconds after CreateTime when it is a small number', () => {
    const authorized = (expiry: string) =>
      parsePlatformEvent(
        {
          ...base,
          InfoType: 'authorized',
          AuthorizerAppid: 'wxa',
          AuthorizationCode: 'c',
          AuthorizationCodeExpiredTime: expiry,
        },
        COMPONENT,
      );
    expect(authorized('1413196360')).toMatchObject({
      authorizationCodeExpiresAt: new Date(1413196360_000),
      preAuthCode: null,
    });
    expect(authorized('3600')).toMatchObject({ authorizationCodeExpiresAt: new Date(1413196360_000) });
  });

  it('reads unauthorized without a code, and passes other InfoTypes on by name', () => {
    expect(
      parsePlatformEvent({ ...base, InfoType: 'unauthorized', AuthorizerAppid: 'wxa' }, COMPONENT),
    ).toEqual({
      infoType: 'unauthorized',
      createTime: new Date(1413192760_000),
      authorizerAppId: 'wxa',
    });
    expect(parsePlatformEvent({ ...base, InfoType: 'notify_third_fasteregister' }, COMPONENT)).toMatchObject({
      infoType: 'other',
      name: 'notify_third_fasteregister',
    });
  });

  it('refuses another component (push_wrong_app) and a push missing what its InfoType needs (push_malformed)', () => {
    expect(
      codeOf(() => parsePlatformEvent({ ...base, AppId: 'wxother', InfoType: 'unauthorized' }, COMPONENT)),
    ).toBe('push_wrong_app');
    expect(
      codeOf(() =>
        parsePlatformEvent({ ...base, InfoType: 'authorized', AuthorizerAppid: 'wxa' }, COMPONENT),
      ),
    ).toBe('push_malformed');
    expect(
      codeOf(() => parsePlatformEvent({ ...base, CreateTime: 'soon', InfoType: 'unauthorized' }, COMPONENT)),
    ).toBe('push_malformed');
  });
});
