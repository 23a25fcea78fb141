import { createQrCodes } from '../../../src/simulator/qrcode-routes';

/** A token registry that knows one token, of one account. */
const tokens = {
  check: (token: string | null) =>
    token === 'good' ? { appId: 'wxqr' } : { errcode: 40001, errmsg: 'invalid credential' },
} as Parameters<ReturnType<typeof createQrCodes>['create']>[0];
const q = (token = 'good') => new URLSearchParams({ access_token: token });
const scene = (s: object) => ({ scene: s });

describe('the simulator’s qrcode/create', () => {
  it('makes temporary codes (60 s unless told, at most 30 days) and permanent ones, by string or integer scene', () => {
    const codes = createQrCodes();
    const temporary = codes.create(tokens, q(), {
      action_name: 'QR_STR_SCENE',
      action_info: scene({ scene_str: 'a' }),
    });
    expect(temporary).toEqual({
      ticket: expect.any(String),
      expire_seconds: 60,
      url: expect.stringMatching(/^http:\/\/weixin\.qq\.com\/q\//),
    });
    const long = codes.create(tokens, q(), {
      expire_seconds: 9_999_999,
      action_name: 'QR_SCENE',
      action_info: scene({ scene_id: 7 }),
    });
    expect(long).toEqual(expect.objectContaining({ expire_seconds: 2_592_000 }));
    const permanent = codes.create(tokens, q(), {
      action_name: 'QR_LIMIT_SCENE',
      action_info: scene({ scene_id: 100_000 }),
    });
    expect(permanent).not.toHaveProperty('expire_seconds');
    expect(codes.list('wxqr').map((c) => [c.actionName, c.scene, c.expireSeconds])).toEqual([
      ['QR_STR_SCENE', 'a', 60],
      ['QR_SCENE', '7', 2_592_000],
      ['QR_LIMIT_SCENE', '100000', null],
    ]);
  });

  it.each([
    [
      'a scene_str over 64 characters',
      { action_name: 'QR_LIMIT_STR_SCENE', action_info: scene({ scene_str: 'x'.repeat(65) }) },
      40097,
    ],
    ['an empty scene_str', { action_name: 'QR_STR_SCENE', action_info: scene({ scene_str: '' }) }, 40097],
    [
      'a permanent scene_id over 100,000',
      { action_name: 'QR_LIMIT_SCENE', action_info: scene({ scene_id: 100_001 }) },
      40097,
    ],
    ['an unknown action_name', { action_name: 'QR_FOREVER', action_info: scene({ scene_str: 'a' }) }, 40097],
    ['no action_info', { action_name: 'QR_STR_SCENE' }, 47001],
    ['a body that is not JSON', null, 47001],
  ])('answers %s with its errcode, and makes nothing', (_what, body, errcode) => {
    const codes = createQrCodes();
    expect(codes.create(tokens, q(), body)).toEqual(expect.objectContaining({ errcode }));
    expect(codes.list('wxqr')).toEqual([]);
  });

  it('answers a bad token with the token’s error', () => {
    expect(
      createQrCodes().create(tokens, q('bad'), {
        action_name: 'QR_STR_SCENE',
        action_info: scene({ scene_str: 'a' }),
      }),
    ).toEqual(expect.objectContaining({ errcode: 40001 }));
  });
});
